"""onnxruntime-cpu target, tool `quantize`: static INT8 quantization (QDQ format).

onnxruntime.quantization: quant_pre_process (shape inference + graph optimisation) then
quantize_static with a CalibrationDataReader over the project's calibration_data, activations
and weights QInt8, per-channel weights by default. Options: calibration method (MinMax,
Entropy, Percentile), moving_average (MinMax: average the per-sample ranges instead of taking
the extremes, extra_options CalibMovingAverage), nodes_to_exclude, and drop_outliers.

The calibration inputs are checked every time against the inputs the model is evaluated on
(aipc_toolbox/calib.py: eval_data, else example_inputs; no tuned factor): a sample above their
range prints `aipc-warning: calibration outlier: sample i ...` (it stretches the INT8 ranges and
can collapse the model with no error at all), and a set mostly outside it prints
`aipc-warning: calibration scale: ...` (the calibration function must change). drop_outliers=true
leaves the outlier samples out; it cannot repair a set on the wrong scale.

Writes build/model_int8.onnx. Prints e.g. {"ok": true, "artifact": "build/model_int8.onnx",
"calib_samples": 63, "calib_outliers": 1, "dropped_samples": 1, "bytes": ..., ...}.
"""
import os
import tempfile
import time

import numpy as np

from aipc_toolbox import calib, emit
from aipc_toolbox.project import Project


def _feeds(samples, names, fixed):
    """One {input name: array} dict per calibration batch (re-cut to a fixed batch if needed)."""
    from aipc_toolbox.tensors import chunks

    def array(t):
        a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
        return a.astype(np.float32) if np.issubdtype(a.dtype, np.floating) else a  # token ids stay integers

    arrays = [[array(t) for t in s] for s in samples]
    if fixed is None or all(s[0].shape[0] == fixed for s in arrays):
        return [dict(zip(names, s)) for s in arrays]
    stacked = [np.concatenate([s[i] for s in arrays]) for i in range(len(names))]
    return [dict(zip(names, part)) for part, _ in chunks(stacked, fixed, True)]


def pre_process(quant_pre_process, src, pre):
    """quant_pre_process (shape inference + graph optimisation); returns how it ran.

    ORT's symbolic shape inference gives up on some graphs with a symbolic dim (a transformer
    with a dynamic sequence: "Incomplete symbolic shape inference"); the pre-processing then
    runs with ONNX's own shape inference only (skip_symbolic_shape), which quantize_static
    accepts: the quantized graph is the same, the step only loses some optimisations.
    """
    try:
        quant_pre_process(src, pre)
        return "full"
    except Exception as e:  # noqa: BLE001 - the message decides
        if "Incomplete symbolic shape inference" not in str(e):
            raise
        emit.note(f"quant_pre_process: {e} (a symbolic dim it cannot follow); pre-processing again with "
                  "skip_symbolic_shape=True (ONNX shape inference only)")
        # That path loses an external-data file on the way ("should be stored in /tmp/pre.quant.../...,
        # but it is not regular file"): give it a one-file copy of the model.
        import onnx

        inline = os.path.join(os.path.dirname(pre), "model_inline.onnx")
        onnx.save(onnx.load(src), inline)
        quant_pre_process(inline, pre, skip_symbolic_shape=True)
        return "skip_symbolic_shape"


def body(a):
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from ortcommon import artifact_bytes, fixed_batch, require_artifact, session

    src, dst = require_artifact(a["input"], "FP32 model"), a["output"]
    p = Project()
    samples = p.calibration_data()
    audit, kept = calib.checked_samples(p, samples, a["drop_outliers"])
    found, maxes, median = audit.outliers, audit.maxes, audit.median
    sess = session(src)
    names = [i.name for i in sess.get_inputs()]
    feeds = _feeds(kept, names, fixed_batch(sess))
    del sess

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)

        def rewind(self):
            self.it = iter(feeds)

    method = {"MinMax": CalibrationMethod.MinMax, "Entropy": CalibrationMethod.Entropy,
              "Percentile": CalibrationMethod.Percentile}[a["method"]]
    extra = {}
    if a["moving_average"]:
        if a["method"] != "MinMax":
            raise emit.ToolError(f"moving_average applies to method MinMax only, not {a['method']}")
        extra["CalibMovingAverage"] = True
    if a["method"] == "Percentile":
        extra["CalibPercentile"] = a["percentile"]
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    emit.note(f"quantizing {src} -> {dst}: QDQ int8, {a['method']}{' + moving average' if a['moving_average'] else ''}, "
              f"per_channel {a['per_channel']}, {len(kept)} calibration samples"
              + (f", excluding nodes {a['nodes_to_exclude']}" if a["nodes_to_exclude"] else ""))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "model_pre.onnx")
        pre_mode = pre_process(quant_pre_process, src, pre)
        quantize_static(
            pre, dst, Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
            weight_type=QuantType.QInt8, per_channel=a["per_channel"], calibrate_method=method,
            nodes_to_exclude=a["nodes_to_exclude"] or [], extra_options=extra,
        )
    quant_s = time.monotonic() - t0
    import onnx

    m = onnx.load(dst, load_external_data=False)
    qdq = sum(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in m.graph.node)
    size, fp32 = artifact_bytes(dst), artifact_bytes(src)
    emit.note(f"wrote {dst}: {size} bytes ({size / fp32:.2f}x of FP32), {qdq} Q/DQ nodes in {quant_s:.2f} s")
    return {
        "artifact": dst, "bytes": size, "fp32_bytes": fp32, "size_ratio": round(size / fp32, 4),
        "method": a["method"], "moving_average": int(a["moving_average"]), "per_channel": int(a["per_channel"]),
        "calib_samples": len(kept), "calib_outliers": len(found), "outlier_samples": found,
        "dropped_samples": len(samples) - len(kept), "calib_max_abs_median": median, "pre_process": pre_mode,
        "calib_max_abs_max": float(maxes.max()), "qdq_nodes": qdq, "quantize_s": round(quant_s, 3),
    }


if __name__ == "__main__":
    emit.main("quantize", __file__, "build", body)
