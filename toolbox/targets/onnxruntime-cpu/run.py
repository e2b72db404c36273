"""onnxruntime-cpu target, tool `run_artifact`: load an .onnx artifact in onnxruntime (CPU execution
provider only) and run the project's example inputs through it.

Input-contract errors (wrong rank, dims, dtype, input names) are onnxruntime's own messages,
e.g. `[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Invalid rank for input: ...`; they surface
unchanged in the traceback and in the error line.

Metrics: ran (1/0), finite (1/0: no NaN/Inf in the outputs), batch, outputs (name -> shape).
"""
import aipc_toolbox

aipc_toolbox.script_dir_last(__file__)  # keep the stdlib inspect/profile ahead of ours

import time

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import rebatch


def body(a):
    from ortcommon import feed, require_artifact, session

    path = require_artifact(a["artifact"])
    p = Project()
    inputs = p.example_inputs()
    if a["batch"]:
        inputs = rebatch(inputs, a["batch"])
    arrays = [t.numpy() for t in inputs]
    t0 = time.monotonic()
    sess = session(path)
    load_s = time.monotonic() - t0
    emit.note(f"loaded {path} (onnxruntime, CPUExecutionProvider) in {load_s * 1000:.1f} ms")
    emit.note("feeding " + ", ".join(f"{i.name}{tuple(x.shape)}:{x.dtype}" for i, x in zip(sess.get_inputs(), arrays)))
    t0 = time.monotonic()
    outs = sess.run(None, feed(sess, arrays))
    run_ms = (time.monotonic() - t0) * 1000
    shapes = {o.name: list(np.asarray(y).shape) for o, y in zip(sess.get_outputs(), outs)}
    finite = all(np.isfinite(np.asarray(y)).all() for y in outs if np.issubdtype(np.asarray(y).dtype, np.floating))
    for name, shape in shapes.items():
        emit.note(f"output {name}: {shape}")
    if not finite:
        emit.note("outputs contain NaN or Inf")
    return {"artifact": path, "ran": 1, "finite": int(finite), "batch": int(arrays[0].shape[0]),
            "outputs": shapes, "load_ms": round(load_s * 1000, 3), "run_ms": round(run_ms, 3)}


if __name__ == "__main__":
    emit.main("run_artifact", __file__, "run", body)
