"""executorch-xnnpack target, tool `run_artifact`: load a .pte with executorch.runtime and run the
project's example inputs through its forward method, then every input of aipc.toml `run_inputs`
(what the project's application feeds at run time, built by its own preprocessing, e.g. infer.py;
numpy arrays become tensors with torch.from_numpy, dtype and strides kept).

Before feeding a run input, its dtypes and shapes are compared with the artifact's inputs (from
the .pte.json sidecar): a dtype the program does not take, or its sizes in another order (NHWC
frames for an NCHW model), print `aipc-warning: input dtype: ...` / `aipc-warning: input
layout: ...` naming the function of the app that built them (followed from the run_inputs call);
the runtime's own error follows. A non-contiguous view (a transpose the app did not copy) prints
`aipc-warning: input not contiguous: ...`: ExecuTorch reads the buffer in memory order and the
model silently sees other values, so `inputs_contiguous` is gated.

Missing kernels (`Missing operator: [0] aten::_unique2.out`, `Failed to load method forward,
error: 0x:14`) and input-contract errors (`Attempted to resize a static tensor`, error 0x10 /
0x12) are ExecuTorch's own log lines (stderr) and exception; they surface unchanged.

Metrics: ran (1/0), finite (1/0), batch, outputs (index -> shape), load_ms, run_ms, run_inputs
(how many were fed), inputs_contiguous (1/0: every run input was contiguous).
"""
import time

from aipc_toolbox import device, emit, feed
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
    emit.note(f"loaded {path} (executorch.runtime, forward) in {load_s * 1000:.1f} ms"
              + (f"; it runs on the device {device.name()}" if device.remote() else ""))
    emit.note("feeding " + ", ".join(f"{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}" for t in inputs))
    t0 = time.monotonic()
    outs = method.execute(list(inputs))
    run_ms = (time.monotonic() - t0) * 1000
    names = p.output_names() or [str(i) for i in range(len(outs))]
    shapes = {n: list(o.shape) for n, o in zip(names, outs)}
    finite = all(bool(torch.isfinite(o).all()) for o in outs if o.is_floating_point())
    for n, s in shapes.items():
        emit.note(f"output {n}: {s}")
    run_items, builders = p.traced_run_inputs()
    contiguous = True
    if run_items:
        import numpy as np

        origin = feed.where(p)
        side = etcommon.read_sidecar(path)
        meta = side if side else etcommon.program_meta(path)
        in_names = (side or {}).get("input_names") or p.input_names(len(meta["inputs"]))
        expected = [{"name": n, **t} for n, t in zip(in_names, meta["inputs"])]
        emit.note(f"feeding the {len(run_items)} run inputs of {origin} (aipc.toml run_inputs) as the app builds them")
        calls = []
        for k, item in enumerate(run_items):
            tensors = [torch.from_numpy(t) if isinstance(t, np.ndarray) else t for t in item]
            problems = feed.check_preprocessing(origin, k, item, expected, builders[k], takes_strides=False)
            contiguous = contiguous and not any(kind == "contiguous" for kind, *_ in problems)
            emit.note(f"run input {k}: " + ", ".join(f"{e['name']}{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}"
                                                     for e, t in zip(expected, tensors)))
            calls.append(tensors)
        for ys in etcommon.execute_many(method, calls):
            finite = finite and all(bool(torch.isfinite(y).all()) for y in ys if y.is_floating_point())
    if not finite:
        emit.note("outputs contain NaN or Inf")
    return {"artifact": path, "ran": 1, "finite": int(finite), "batch": int(inputs[0].shape[0]), "outputs": shapes,
            "load_ms": round(load_s * 1000, 3), "run_ms": round(run_ms, 3), "run_inputs": len(run_items),
            "inputs_contiguous": int(contiguous)}


if __name__ == "__main__":
    emit.main("run_artifact", __file__, "run", body)
