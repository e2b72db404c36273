"""onnxruntime-cpu target: the INT8 formats `quantize` builds and `int8_formats` measures.

One format is a recipe of onnxruntime.quantization: static (calibrated) QDQ or QOperator graphs
with signed or unsigned activations and per-channel or per-tensor weights, optionally limited to
the compute ops (Conv/MatMul/Gemm, leaving element-wise ops in float), or dynamic quantization of
the MatMul/Gemm weights (activations quantized at run time, no calibration). Which one is fastest
depends on the model and on the CPU's integer kernels: on this machine kind the default signed QDQ
graph of a small MLP ran 1.6x slower than FP32 while the dynamic MatMul one ran at 0.75x, and a
conv net went the other way (dynamic ConvInteger 8.6x slower, QDQ 0.63x). Never assume; measure.

Every INT8 artifact records its format and the calibration settings it was built with in the
model's metadata (`aipc.int8_format`, `aipc.quantize`), so a check can tell a stale artifact and a
later build can reuse the calibration the accuracy stage chose.
"""
import json
import os
import tempfile
import time
import traceback

import numpy as np

from aipc_toolbox import emit

DEFAULT_FORMAT = "qdq-s8s8"
COMPUTE_OPS = ["Conv", "ConvTranspose", "MatMul", "Gemm"]
# name: (graph form, activation type, per-channel weights, op types quantized (None: all), dynamic)
FORMATS = {
    "qdq-s8s8": ("QDQ", "QInt8", True, None, False),
    "qdq-u8s8": ("QDQ", "QUInt8", True, None, False),
    "qdq-u8s8-tensor": ("QDQ", "QUInt8", False, None, False),
    "qdq-u8s8-conv-matmul": ("QDQ", "QUInt8", True, COMPUTE_OPS, False),
    "qoperator-u8s8": ("QOperator", "QUInt8", True, None, False),
    "dynamic-matmul": (None, None, False, ["MatMul", "Gemm"], True),
}
META_FORMAT, META_ARGS, META_CHOSEN = "aipc.int8_format", "aipc.quantize", "aipc.chosen_by"
META_CALIBRATION = "aipc.calibration_scale"  # the set-level calibration line, when the set was off
# Calibration settings a later build reuses (the accuracy stage may have chosen them).
CALIB_KEYS = ("method", "moving_average", "percentile", "nodes_to_exclude", "drop_outliers")
QUANT_OPS = ("QuantizeLinear", "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul", "QGemm", "MatMulInteger",
             "ConvInteger", "DynamicQuantizeMatMul", "MatMulIntegerToFloat")


def project_format(p):
    """The format aipc.toml asks for (`int8_format`), checked against this target's list."""
    from aipc_toolbox.int8_choice import project_format as checked

    return checked(p, "onnxruntime-cpu", FORMATS, DEFAULT_FORMAT)


def recorded(path):
    """(format, calibration settings) an INT8 artifact was built with; (None, {}) when not recorded."""
    import onnx

    props = metadata(onnx.load(path, load_external_data=False))
    try:
        args = json.loads(props.get(META_ARGS, "{}"))
    except ValueError:
        args = {}
    return props.get(META_FORMAT), args if isinstance(args, dict) else {}


def metadata(model):
    return {p.key: p.value for p in model.metadata_props}


def int8_node_count(model):
    return sum(n.op_type in QUANT_OPS for n in model.graph.node)


def pre_process(src, pre):
    """quant_pre_process (shape inference + graph optimisation); returns how it ran.

    ORT's symbolic shape inference gives up on some graphs with a symbolic dim (a transformer
    with a dynamic sequence: "Incomplete symbolic shape inference"), and crashes on others (a
    graph-level rewrite's Where -> ReduceMax before a Concat: "TypeError: 'NoneType' object is
    not iterable" in _infer_Concat, onnxruntime 1.32); the pre-processing then runs with ONNX's
    own shape inference only (skip_symbolic_shape), which quantize_static accepts: the quantized
    graph is the same, the step only loses some optimisations.
    """
    from onnxruntime.quantization.shape_inference import quant_pre_process

    try:
        quant_pre_process(src, pre)
        return "full"
    except Exception as e:  # noqa: BLE001 - where it failed decides
        in_symbolic = any("symbolic_shape_infer" in f.filename for f in traceback.extract_tb(e.__traceback__))
        if "Incomplete symbolic shape inference" not in str(e) and not in_symbolic:
            raise
        emit.note(f"quant_pre_process: {emit.describe(e)} (in onnxruntime's symbolic shape inference); pre-processing "
                  "again with skip_symbolic_shape=True (ONNX shape inference only)")
        # That path loses an external-data file on the way ("should be stored in /tmp/pre.quant.../...,
        # but it is not regular file"): give it a one-file copy of the model.
        import onnx

        inline = os.path.join(os.path.dirname(pre), "model_inline.onnx")
        onnx.save(onnx.load(src), inline)
        quant_pre_process(inline, pre, skip_symbolic_shape=True)
        return "skip_symbolic_shape"


def build(pre, dst, fmt, feeds, calib, per_channel=None, chosen_by=None, calibration_scale=None):
    """Quantize the pre-processed FP32 model `pre` into `dst` in format `fmt`, calibrated on
    `feeds` (a list of {input: array}) with the settings `calib` (CALIB_KEYS); records the
    format and settings in the artifact (and `chosen_by`, the tool that measured it, when given).
    Returns the seconds it took."""
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_dynamic, quantize_static

    form, act, default_pc, ops, dynamic = FORMATS[fmt]
    pc = default_pc if per_channel is None else bool(per_channel)
    excluded = calib.get("nodes_to_exclude") or []
    if excluded:
        known = {n.name for n in onnx.load(pre, load_external_data=False).graph.node}
        unknown = [n for n in excluded if n not in known]
        if unknown:
            raise emit.ToolError(f"no node {unknown} in the model quantize reads: nodes_to_exclude and aipc.toml "
                                 "int8_float_nodes name its ONNX nodes (a wrong name would quantize everything); names "
                                 "from aipc.toml go stale when the model's export changes: clear them with set_project_option "
                                 "{\"key\": \"int8_float_nodes\", \"value\": []}, then int8_sensitivity chooses again")
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    t0 = time.monotonic()
    if dynamic:
        quantize_dynamic(pre, dst, weight_type=QuantType.QInt8, per_channel=pc, op_types_to_quantize=ops,
                         nodes_to_exclude=calib.get("nodes_to_exclude") or [])
    else:
        method = calib.get("method", "MinMax")
        extra = {}
        if calib.get("moving_average"):
            if method != "MinMax":
                raise emit.ToolError(f"moving_average applies to method MinMax only, not {method}")
            extra["CalibMovingAverage"] = True
        if method == "Percentile":
            extra["CalibPercentile"] = calib.get("percentile", 99.999)
        calibrate = {"MinMax": CalibrationMethod.MinMax, "Entropy": CalibrationMethod.Entropy,
                     "Percentile": CalibrationMethod.Percentile}[method]
        quantize_static(pre, dst, feeds_reader(feeds), quant_format=getattr(QuantFormat, form), activation_type=getattr(QuantType, act),
                        weight_type=QuantType.QInt8, per_channel=pc, calibrate_method=calibrate, op_types_to_quantize=ops,
                        nodes_to_exclude=calib.get("nodes_to_exclude") or [], extra_options=extra)
    seconds = time.monotonic() - t0
    m = onnx.load(dst, load_external_data=False)
    settings = {k: calib[k] for k in CALIB_KEYS if k in calib}
    settings["per_channel"] = pc
    props = ([(META_FORMAT, fmt), (META_ARGS, json.dumps(settings, sort_keys=True))] + ([(META_CHOSEN, chosen_by)] if chosen_by else [])
             + ([(META_CALIBRATION, calibration_scale)] if calibration_scale and not FORMATS[fmt][4] else []))
    for key, value in props:
        prop = next((p for p in m.metadata_props if p.key == key), None) or m.metadata_props.add()
        prop.key, prop.value = key, value
    onnx.save(m, dst)
    return seconds


def feeds_reader(feeds):
    """An onnxruntime CalibrationDataReader over a list of {input name: array} feeds."""
    from onnxruntime.quantization import CalibrationDataReader

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)

        def rewind(self):
            self.it = iter(feeds)

    return Reader()


def recorded_calibration(path, note=True):
    """(format, calibration settings CALIB_KEYS) the INT8 artifact at `path` was built with, as a
    later build reuses them (the accuracy stage's choice is kept); (None, {}) when there is none."""
    previous, calib = recorded(path) if os.path.isfile(path) else (None, {})
    calib = {k: calib[k] for k in CALIB_KEYS if k in calib}
    if note:
        from aipc_toolbox.int8_choice import calibration_note

        calibration_note(path, calib)
    return previous, calib


def calibration_feeds(p, src, drop_outliers, quiet=False):
    """The project's calibration samples as feeds for `src`, audited (aipc_toolbox/calib.py;
    `quiet` for a dynamic format, which uses none); returns (feeds, audit, samples given, samples kept)."""
    from aipc_toolbox import calib
    from ortcommon import fixed_batch, session

    samples = p.calibration_data()
    audit, kept = calib.checked_samples(p, samples, drop_outliers, quiet)
    sess = session(src)
    names = [i.name for i in sess.get_inputs()]
    fixed = fixed_batch(sess)
    del sess
    feeds = calibration_batches(kept, names, fixed)
    return feeds, audit, len(samples), len(kept)


def calibration_batches(samples, names, fixed):
    """One {input name: array} dict per calibration sample, re-cut to the artifact's fixed batch
    when it has one (the last batch padded); float inputs as float32, integer ones (token ids) kept."""
    from aipc_toolbox.tensors import chunks

    def array(t):
        a = np.asarray(t.numpy() if hasattr(t, "numpy") else t)
        return a.astype(np.float32) if np.issubdtype(a.dtype, np.floating) else a

    arrays = [[array(t) for t in s] for s in samples]
    if fixed is None or all(s[0].shape[0] == fixed for s in arrays):
        return [dict(zip(names, s)) for s in arrays]
    stacked = [np.concatenate([s[i] for s in arrays]) for i in range(len(names))]
    return [dict(zip(names, part)) for part, _ in chunks(stacked, fixed, True)]


def pre_processed(src):
    """A temporary folder and the pre-processed copy of `src` inside it: (TemporaryDirectory, path, mode)."""
    tmp = tempfile.TemporaryDirectory()
    pre = os.path.join(tmp.name, "model_pre.onnx")
    mode = pre_process(src, pre)
    return tmp, pre, mode
