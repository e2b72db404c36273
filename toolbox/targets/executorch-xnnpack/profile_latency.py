"""executorch-xnnpack target, tool `profile`: latency of a .pte with executorch.runtime; by default
the one the project ships (build/model_int8.pte with aipc.toml quantize = "int8", else
build/model.pte).

Sets the XNNPACK threadpool to `threads` (ExecuTorch pybindings' _unsafe_reset_threadpool),
runs the project's example input re-cut to `batch` rows (default: the artifact's static batch,
or 1 with a dynamic batch), `warmup` untimed runs, then up to `iters` timed runs (stopping after
max_s seconds); each run is one Method.execute call from Python (its overhead included).
Compares the median with the project's aipc.toml `latency_budget_ms`.

Metrics: p50_ms, p95_ms, mean_ms, min_ms, runs, threads, batch, kind (fp32/int8), latency_budget_ms,
within_budget (1 when p50_ms <= latency_budget_ms; 1 when the project sets no budget, and a shipped
INT8 artifact is then timed beside FP32: fp32_p50_ms, int8_speedup).
An FP32 program over the budget is compared with its INT8 sibling (build/model_int8.pte) when
that exists: int8_p50_ms, int8_within_budget, and `aipc-warning: fp32 over budget: ...` when the
INT8 program meets the budget (aipc.toml quantize = "int8" ships it). With no sibling (a project that ships
FP32 builds none) the warning says so and names int8_formats, which builds and times them. An INT8 program over the
budget (shipped, or the sibling of an FP32 one over it) prints `aipc-warning: int8 over budget:
...` with its format (a shipped one is compared with FP32 first: fp32_p50_ms): int8_formats
measures the other formats.
"""
import os
import time

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.project import Project, budget_line, unbuilt_int8_line, without_budget
from aipc_toolbox.tensors import rebatch


FP32, INT8 = "build/model.pte", "build/model_int8.pte"


def measure(path, p, a, threads):
    """Latency of one program: (times in ms, batch, threadpool size, quantized)."""
    import etcommon

    side = etcommon.read_sidecar(path) or {}
    ex = p.example_inputs()
    batch = a["batch"] or (1 if side.get("dynamic_batch") else int(side.get("example_batch") or ex[0].shape[0]))
    inputs = list(rebatch(ex, batch))
    from aipc_toolbox import device

    if device.remote():  # on the device: timed there at `threads`, transfer excluded
        ms = etcommon.load_method(path, threads).time(inputs, a["warmup"], a["iters"], a["max_s"])
        return ms, batch, threads, bool(side.get("quantized"))
    got = etcommon.set_threads(threads)
    method = etcommon.load_method(path)
    for _ in range(a["warmup"]):
        method.execute(inputs)
    times = []
    deadline = time.monotonic() + a["max_s"]
    for _ in range(a["iters"]):
        t0 = time.perf_counter()
        method.execute(inputs)
        times.append(time.perf_counter() - t0)
        if time.monotonic() > deadline and len(times) >= 5:
            break
    return np.array(times) * 1000, batch, got, bool(side.get("quantized"))


def _other_formats(path, p50, budget, fp32_note):
    """The INT8 program misses the budget in the format it was built in; another may not."""
    import etcommon

    fmt = ((etcommon.read_sidecar(path) or {}).get("quantize") or {}).get("format") or "an unrecorded format"
    emit.warn("int8 over budget", f"{path} ({fmt}) p50 {p50:.4f} ms > {budget} ms budget"
              + (f" ({fp32_note})" if fp32_note else "") + "; other INT8 formats may be faster here: int8_formats {} measures them")


def body(a):
    import etcommon

    p = Project()
    path = etcommon.require_artifact(a["artifact"] or p.shipped(FP32, INT8))
    threads = a["threads"] or p.get("threads", 1)
    ms, batch, got, quantized = measure(path, p, a, threads)
    kind = "int8" if quantized else "fp32"
    out = {"artifact": path, "kind": kind, "quantize": p["quantize"], "p50_ms": float(np.percentile(ms, 50)),
           "p95_ms": float(np.percentile(ms, 95)), "mean_ms": float(ms.mean()), "min_ms": float(ms.min()),
           "runs": len(ms), "threads": threads, "threadpool_threads": got, "batch": batch, "bytes": os.path.getsize(path)}
    budget = p.get("latency_budget_ms")
    emit.note(f"{path} ({kind}): p50 {out['p50_ms']:.3f} ms, p95 {out['p95_ms']:.3f} ms over {len(ms)} runs "
              f"(batch {batch}, {threads} thread(s))" + (f"; budget {budget} ms" if budget else ""))
    if budget:
        out["latency_budget_ms"] = float(budget)
        out["within_budget"] = int(out["p50_ms"] <= budget)
        if not out["within_budget"] and kind == "fp32" and os.path.isfile(INT8) and os.path.abspath(path) != os.path.abspath(INT8):
            ms8, _, _, _ = measure(INT8, p, a, threads)
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
                ms32, _, _, _ = measure(FP32, p, a, threads)
                out["fp32_p50_ms"] = float(np.percentile(ms32, 50))
                fp32_note = f"FP32 {FP32} p50 {out['fp32_p50_ms']:.4f} ms"
                emit.note(f"{FP32} (fp32): p50 {out['fp32_p50_ms']:.3f} ms over {len(ms32)} runs, same settings")
            _other_formats(path, out["p50_ms"], budget, fp32_note)
    else:
        without_budget(out, FP32, lambda: measure(FP32, p, a, threads)[0])
    return out


if __name__ == "__main__":
    emit.main("profile", __file__, "performance", body)
