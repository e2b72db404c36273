"""onnxruntime-cpu target, tool `profile`: latency of an .onnx artifact in onnxruntime (CPU); by
default the one the project ships (build/model_int8.onnx with aipc.toml quantize = "int8", else
build/model.onnx).

One session with intra_op_num_threads = threads (inter-op 1), the project's example input
re-cut to `batch` rows (default 1, or the artifact's fixed batch), `warmup` untimed runs, then
up to `iters` timed runs (stopping after max_s seconds). Compares the median with the project's
aipc.toml `latency_budget_ms`.

Metrics: p50_ms, p95_ms, mean_ms, min_ms, runs, threads, batch, kind (fp32/int8), latency_budget_ms,
within_budget (1 when p50_ms <= latency_budget_ms; 1 when the project sets no budget, and a shipped
INT8 artifact is then timed beside FP32: fp32_p50_ms, int8_speedup).
An FP32 artifact over the budget is compared with its INT8 sibling (build/model_int8.onnx) when
that exists: int8_p50_ms, int8_within_budget, and `aipc-warning: fp32 over budget: ...` when the
INT8 model meets the budget (aipc.toml quantize = "int8" ships it). With no sibling (a project that ships
FP32 builds none) the warning says so and names int8_formats, which builds and times them. An INT8 artifact over the
budget (shipped, or the sibling of an FP32 one over it) prints `aipc-warning: int8 over budget:
...` with its format: the INT8 format that is fastest depends on the model and the CPU, and
int8_formats measures them all (a shipped INT8 one is compared with FP32 first: fp32_p50_ms).
"""
import os
import time

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.project import Project, budget_line, unbuilt_int8_line, without_budget
from aipc_toolbox.tensors import rebatch


FP32, INT8 = "build/model.onnx", "build/model_int8.onnx"


def measure(path, p, a, threads):
    """Latency of one artifact: (times in ms, batch)."""
    from ortcommon import feed, fixed_batch, session

    sess = session(path, threads=threads)
    batch = a["batch"] or fixed_batch(sess) or 1
    arrays = [t.numpy() for t in rebatch(p.example_inputs(), batch)]
    inputs = feed(sess, arrays)
    if hasattr(sess, "time"):  # on the device: timed there, transfer excluded
        return sess.time(inputs, a["warmup"], a["iters"], a["max_s"]), batch
    for _ in range(a["warmup"]):
        sess.run(None, inputs)
    times = []
    deadline = time.monotonic() + a["max_s"]
    for _ in range(a["iters"]):
        t0 = time.perf_counter()
        sess.run(None, inputs)
        times.append(time.perf_counter() - t0)
        if time.monotonic() > deadline and len(times) >= 5:
            break
    return np.array(times) * 1000, batch


def _other_formats(path, p50, budget, fp32_note):
    """The INT8 artifact misses the budget in the format it was built in; another may not."""
    from ortquant import recorded

    fmt = recorded(path)[0] or "an unrecorded format"
    emit.warn("int8 over budget", f"{path} ({fmt}) p50 {p50:.4f} ms > {budget} ms budget"
              + (f" ({fp32_note})" if fp32_note else "") + "; other INT8 formats may be faster here: int8_formats {} measures them")


def body(a):
    from ortcommon import artifact_bytes, is_quantized, require_artifact

    p = Project()
    path = require_artifact(a["artifact"] or p.shipped(FP32, INT8))
    threads = a["threads"] or p.get("threads", 1)
    ms, batch = measure(path, p, a, threads)
    kind = "int8" if is_quantized(path) else "fp32"
    out = {"artifact": path, "kind": kind, "quantize": p["quantize"], "p50_ms": float(np.percentile(ms, 50)),
           "p95_ms": float(np.percentile(ms, 95)), "mean_ms": float(ms.mean()), "min_ms": float(ms.min()),
           "runs": len(ms), "threads": threads, "batch": batch, "bytes": artifact_bytes(path)}
    budget = p.get("latency_budget_ms")
    emit.note(f"{path} ({kind}): p50 {out['p50_ms']:.3f} ms, p95 {out['p95_ms']:.3f} ms over {len(ms)} runs "
              f"(batch {batch}, {threads} thread(s))" + (f"; budget {budget} ms" if budget else ""))
    if budget:
        out["latency_budget_ms"] = float(budget)
        out["within_budget"] = int(out["p50_ms"] <= budget)
        if not out["within_budget"] and kind == "fp32" and os.path.isfile(INT8) and os.path.abspath(path) != os.path.abspath(INT8):
            ms8, _ = measure(INT8, p, a, threads)
            out["int8_p50_ms"] = float(np.percentile(ms8, 50))
            out["int8_within_budget"] = int(out["int8_p50_ms"] <= budget)
            emit.note(f"{INT8} (int8): p50 {out['int8_p50_ms']:.3f} ms over {len(ms8)} runs, same settings")
            if out["int8_within_budget"]:
                emit.warn("fp32 over budget", budget_line(path, out, budget, INT8, p["quantize"]))
            else:
                _other_formats(INT8, out["int8_p50_ms"], budget, f"FP32 {path} p50 {out['p50_ms']:.4f} ms")
        elif not out["within_budget"] and kind == "fp32" and not os.path.isfile(INT8):
            emit.warn("fp32 over budget", unbuilt_int8_line(path, out, budget, INT8, p["quantize"]))
        elif not out["within_budget"] and kind == "int8":
            fp32_note = ""
            if os.path.isfile(FP32):
                ms32, _ = measure(FP32, p, a, threads)
                out["fp32_p50_ms"] = float(np.percentile(ms32, 50))
                fp32_note = f"FP32 {FP32} p50 {out['fp32_p50_ms']:.4f} ms"
                emit.note(f"{FP32} (fp32): p50 {out['fp32_p50_ms']:.3f} ms over {len(ms32)} runs, same settings")
            _other_formats(path, out["p50_ms"], budget, fp32_note)
    else:
        without_budget(out, FP32, lambda: measure(FP32, p, a, threads)[0])
    return out


if __name__ == "__main__":
    emit.main("profile", __file__, "performance", body)
