"""onnxruntime-cpu target, tool `run_artifact`: load an .onnx artifact in onnxruntime (CPU execution
provider only) and run the project's example inputs through it, then every input of aipc.toml
`run_inputs` (what the project's application feeds at run time, built by its own preprocessing,
e.g. infer.py), unchanged: the runtime sees exactly what the app would give it.

Input-contract errors (wrong rank, dims, dtype, input names) are onnxruntime's own messages,
e.g. `[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Invalid rank for input: ...`; they surface
unchanged in the traceback and in the error line.

Before feeding a run input, its dtypes and shapes are compared with the artifact's inputs: a
dtype the artifact does not take, or the artifact's sizes in another order (NHWC frames for an
NCHW model), print `aipc-warning: input dtype: ...` / `aipc-warning: input layout: ...` naming
the file that builds them (the repair is there, not in the model); the runtime's own error follows.

Metrics: ran (1/0), finite (1/0: no NaN/Inf in the outputs), batch, outputs (name -> shape),
run_inputs (how many were fed).
"""
import time

import numpy as np

from aipc_toolbox import device, emit, feed
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import rebatch


def body(a):
    from ortcommon import feed as feed_dict
    from ortcommon import require_artifact, run_many, session

    path = require_artifact(a["artifact"])
    p = Project()
    inputs = p.example_inputs()
    if a["batch"]:
        inputs = rebatch(inputs, a["batch"])
    arrays = [t.numpy() for t in inputs]
    t0 = time.monotonic()
    sess = session(path)
    load_s = time.monotonic() - t0
    emit.note(f"loaded {path} (onnxruntime, CPUExecutionProvider) in {load_s * 1000:.1f} ms"
              + (f"; it runs on the device {device.name()}" if device.remote() else ""))
    emit.note("feeding " + ", ".join(f"{i.name}{tuple(x.shape)}:{x.dtype}" for i, x in zip(sess.get_inputs(), arrays)))
    t0 = time.monotonic()
    outs = sess.run(None, feed_dict(sess, arrays))
    run_ms = (time.monotonic() - t0) * 1000
    shapes = {o.name: list(np.asarray(y).shape) for o, y in zip(sess.get_outputs(), outs)}
    finite = all(np.isfinite(np.asarray(y)).all() for y in outs if np.issubdtype(np.asarray(y).dtype, np.floating))
    run_items, builders = p.traced_run_inputs()
    if run_items:
        origin = feed.where(p)
        expected = [{"name": i.name, "shape": i.shape, "dtype": feed.dtype_name(i.type)} for i in sess.get_inputs()]
        emit.note(f"feeding the {len(run_items)} run inputs of {origin} (aipc.toml run_inputs) as the app builds them")
        feeds = []
        for k, item in enumerate(run_items):
            arrays_k = [t if isinstance(t, np.ndarray) else t.numpy() for t in item]
            feed.check_preprocessing(origin, k, item, expected, builders[k])
            emit.note(f"run input {k}: " + ", ".join(f"{e['name']}{tuple(x.shape)}:{x.dtype}" for e, x in zip(expected, arrays_k)))
            feeds.append(feed_dict(sess, arrays_k))
        for ys in run_many(sess, feeds):
            finite = finite and all(np.isfinite(np.asarray(y)).all() for y in ys if np.issubdtype(np.asarray(y).dtype, np.floating))
    for name, shape in shapes.items():
        emit.note(f"output {name}: {shape}")
    if not finite:
        emit.note("outputs contain NaN or Inf")
    return {"artifact": path, "ran": 1, "finite": int(finite), "batch": int(arrays[0].shape[0]),
            "outputs": shapes, "load_ms": round(load_s * 1000, 3), "run_ms": round(run_ms, 3), "run_inputs": len(run_items)}


if __name__ == "__main__":
    emit.main("run_artifact", __file__, "run", body)
