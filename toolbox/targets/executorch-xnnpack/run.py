"""executorch-xnnpack target, tool `run_artifact`: load a .pte with executorch.runtime and run the
project's example inputs through its forward method.

Missing kernels (`Missing operator: [0] aten::_unique2.out`, `Failed to load method forward,
error: 0x:14`) and input-contract errors (`Attempted to resize a static tensor`, error 0x10 /
0x12) are ExecuTorch's own log lines (stderr) and exception; they surface unchanged.

Metrics: ran (1/0), finite (1/0), batch, outputs (index -> shape), load_ms, run_ms.
"""
import aipc_toolbox

aipc_toolbox.script_dir_last(__file__)  # keep the stdlib inspect/profile ahead of ours

import time

from aipc_toolbox import emit
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import rebatch


def body(a):
    import etcommon
    import torch

    path = etcommon.require_artifact(a["artifact"])
    p = Project()
    inputs = p.example_inputs()
    if a["batch"]:
        inputs = rebatch(inputs, a["batch"])
    import executorch.runtime  # noqa: F401 - imported before timing the load (it imports torch)

    t0 = time.monotonic()
    method = etcommon.load_method(path)
    load_s = time.monotonic() - t0
    emit.note(f"loaded {path} (executorch.runtime, forward) in {load_s * 1000:.1f} ms")
    emit.note("feeding " + ", ".join(f"{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}" for t in inputs))
    t0 = time.monotonic()
    outs = method.execute(list(inputs))
    run_ms = (time.monotonic() - t0) * 1000
    names = p.output_names() or [str(i) for i in range(len(outs))]
    shapes = {n: list(o.shape) for n, o in zip(names, outs)}
    finite = all(bool(torch.isfinite(o).all()) for o in outs if o.is_floating_point())
    for n, s in shapes.items():
        emit.note(f"output {n}: {s}")
    if not finite:
        emit.note("outputs contain NaN or Inf")
    return {"artifact": path, "ran": 1, "finite": int(finite), "batch": int(inputs[0].shape[0]), "outputs": shapes,
            "load_ms": round(load_s * 1000, 3), "run_ms": round(run_ms, 3)}


if __name__ == "__main__":
    emit.main("run_artifact", __file__, "run", body)
