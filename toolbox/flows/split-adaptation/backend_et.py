"""The split-adaptation flow's executorch-xnnpack backend: capture a backbone with torch.export at
a static batch of 16, lower it to an XNNPACK .pte (FP32), and build the INT8 one with PT2E (the
XNNPACKQuantizer's symmetric config: per-tensor weights unless restoration asks for per-channel;
MinMax observers), then run either through executorch.runtime in chunks of 16 (the last one
padded). A static batch, because with a dynamic one the lowered program's planned input held
only 15 samples whatever the declared bound (ExecuTorch 1.5.1: "Attempted to resize a bounded
tensor with a maximum capacity of 960 elements"), and XNNPACK left the flatten on the portable
kernels."""
import os
import time

import numpy as np

from aipc_toolbox.emit import note

SUFFIX = ".pte"
RUNTIME = "executorch-xnnpack"
BATCH = 16


def _static(example):
    """The example inputs at batch BATCH (the first sample repeated)."""
    return tuple(t[:1].repeat(BATCH, *[1] * (t.dim() - 1)) for t in example)


def _lower(ep, path):
    import etcommon

    return etcommon.lower_and_save(ep, path, {"dynamic_batch": False, "example_batch": BATCH})


def export(backbone, example, path):
    import etcommon  # noqa: F401 - sets QNN_SDK_ROOT before executorch is imported
    import torch

    ex = _static(example)
    t0 = time.monotonic()
    ep = torch.export.export(backbone, ex, strict=False)
    _lower(ep, path)
    return time.monotonic() - t0


def quantize(fp32_path, int8_path, calib, per_channel, backbone=None, example=None):
    import etcommon  # noqa: F401
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import get_symmetric_quantization_config
    from torchao.quantization.pt2e.observer import MinMaxObserver

    import dataclasses

    from quantize import _batches, pt2e_convert

    ex = _static(example)
    t0 = time.monotonic()
    module = torch.export.export(backbone, ex, strict=False).module()
    cfg = get_symmetric_quantization_config(is_per_channel=per_channel)
    act = dataclasses.replace(cfg.input_activation, observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=2**-12))
    cfg = dataclasses.replace(cfg, input_activation=act, output_activation=act)
    converted = pt2e_convert(module, _batches([tuple(s) for s in calib], BATCH), cfg)
    ep = torch.export.export(converted, ex, strict=False)
    _lower(ep, int8_path)
    note(f"quantized the backbone -> {int8_path}: PT2E XNNPACKQuantizer, symmetric int8, weights "
         f"{'per channel' if per_channel else 'per tensor'}, MinMax over {len(calib)} calibration samples")
    return time.monotonic() - t0


def features(path, inputs, threads=None):
    """Run the backbone artifact on batched input tensors; (features [N, F], seconds of run)."""
    import etcommon

    if threads:
        etcommon.set_threads(threads)
    method = etcommon.load_method(path)
    arrays = [np.ascontiguousarray(t.numpy()) for t in inputs]
    t0 = time.perf_counter()
    (out,) = etcommon.run_all(method, arrays, {"dynamic_batch": False, "example_batch": BATCH})[:1]
    return out.reshape(out.shape[0], -1), time.perf_counter() - t0
