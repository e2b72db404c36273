"""qairt-* targets, tool `profile`: latency of an artifact with the SDK runtime's profiling
(qnn-net-run `--profiling_level basic` read back with qnn-profile-viewer; snpe-net-run's with
snpe-diagview), on the device when the session has one: the project's example input `iters` times
(the first `warmup` executions are dropped). By default the artifact the project ships (the INT8
one with aipc.toml quantize = "int8", else the FP one, of the session's target's flow). Compares
the median with aipc.toml `latency_budget_ms`.

Metrics: p50_ms, p95_ms, mean_ms, min_ms, runs, kind, quantized (1/0), latency_budget_ms,
within_budget (1 also when the project sets no budget).
"""
import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.project import Project


def body(a):
    import qnncommon as q

    p = Project()
    path = a["artifact"] or p.shipped(*q.flow())
    net = q.net_of(path)
    example = [t.numpy() for t in p.example_inputs()]
    _, result = q.execute(path, [example] * (a["warmup"] + a["iters"]), profiling=True)
    times = np.array(result.get("executions_us", [])[a["warmup"]:], dtype=float) / 1000.0
    if times.size == 0:
        raise emit.ToolError(f"{q.runtime_tool(path)}'s profile had no executions")
    out = {"artifact": path, "kind": "int8" if net.get("quantization") else "fp",
           "quantized": int(bool(net.get("quantization"))), "p50_ms": float(np.percentile(times, 50)),
           "p95_ms": float(np.percentile(times, 95)), "mean_ms": float(times.mean()), "min_ms": float(times.min()),
           "runs": int(times.size)}
    budget = p.get("latency_budget_ms")
    emit.note(f"{path}: p50 {out['p50_ms']:.3f} ms, p95 {out['p95_ms']:.3f} ms over {times.size} executions"
              + (f"; budget {budget} ms" if budget else ""))
    out["within_budget"] = int(out["p50_ms"] <= budget) if budget else 1
    if budget:
        out["latency_budget_ms"] = float(budget)
    return out


if __name__ == "__main__":
    emit.main("profile", __file__, "performance", body)
