"""The split-adaptation flow's onnxruntime-cpu backend: export a backbone to ONNX (torch.onnx,
dynamo, dynamic batch), quantize it with onnxruntime's static QDQ quantization (the target's own
recipe, ortquant.build: signed 8-bit activations and weights, MinMax calibration; per-tensor
weights unless restoration asks for per-channel), and run it on the CPU execution provider."""
import os
import tempfile
import time

import numpy as np

from aipc_toolbox.emit import note

SUFFIX = ".onnx"
RUNTIME = "onnxruntime-cpu"


def _batch2(example):
    import torch

    return tuple(torch.cat([t, t]) if t.shape[0] == 1 else t for t in example)


def export(backbone, example, path):
    """FP32 backbone -> `path` (one file, weights inline); returns seconds."""
    import torch

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    ex = _batch2(example)
    names = [f"input_{i}" if len(ex) > 1 else "input" for i in range(len(ex))]
    dims = tuple({0: torch.export.Dim("batch", min=1, max=4096)} for _ in ex)
    t0 = time.monotonic()
    prog = torch.onnx.export(backbone, ex, dynamo=True, input_names=names, output_names=["features"],
                             dynamic_shapes=dims, verbose=False)
    prog.save(path, external_data=False)
    return time.monotonic() - t0


def quantize(fp32_path, int8_path, calib, per_channel):
    """INT8 QDQ backbone calibrated on `calib` (list of input tuples); returns seconds."""
    import ortquant

    sess = session(fp32_path)
    names = [i.name for i in sess.get_inputs()]
    feeds = [{n: np.ascontiguousarray(t.numpy()) for n, t in zip(names, sample)} for sample in calib]
    with tempfile.TemporaryDirectory(prefix="aipc-split-") as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        ortquant.pre_process(fp32_path, pre)
        seconds = ortquant.build(pre, int8_path, "qdq-s8s8", feeds, {"method": "MinMax"}, per_channel=per_channel,
                                 chosen_by="build_backbone")
    note(f"quantized {fp32_path} -> {int8_path}: static QDQ, int8 activations (per tensor), int8 weights "
         f"({'per channel' if per_channel else 'per tensor'}), MinMax over {len(calib)} calibration samples")
    return seconds


def session(path, threads=None):
    from ortcommon import session as ort_session

    return ort_session(path, threads)


def features(path, inputs, threads=None, batch=256):
    """Run the backbone artifact on batched input tensors; (features [N, F], seconds of run)."""
    sess = session(path, threads)
    names = [i.name for i in sess.get_inputs()]
    arrays = [np.ascontiguousarray(t.numpy()) for t in inputs]
    outs = []
    t0 = time.perf_counter()
    for start in range(0, arrays[0].shape[0], batch):
        y = sess.run(None, {n: a[start:start + batch] for n, a in zip(names, arrays)})[0]
        outs.append(np.asarray(y).reshape(y.shape[0], -1))
    return np.concatenate(outs), time.perf_counter() - t0
