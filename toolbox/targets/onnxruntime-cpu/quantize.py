"""onnxruntime-cpu target, tool `quantize`: INT8 quantization in one of the formats of ortquant.py.

onnxruntime.quantization: quant_pre_process (shape inference + graph optimisation) then
quantize_static with a CalibrationDataReader over the project's calibration_data (or
quantize_dynamic for the dynamic format), in the `format` asked for, else aipc.toml [project]
int8_format, else qdq-s8s8 (QDQ, activations and weights QInt8, per-channel weights).
Options: calibration method (MinMax, Entropy, Percentile), moving_average (MinMax: average the per-sample ranges instead of taking
the extremes, extra_options CalibMovingAverage), nodes_to_exclude (with aipc.toml int8_float_nodes
always added), and drop_outliers.

The calibration inputs are checked every time against the inputs the model is evaluated on
(aipc_toolbox/calib.py: eval_data, else example_inputs; no tuned factor): a sample above their
range prints `aipc-warning: calibration outlier: sample i ...` (it stretches the INT8 ranges and
can collapse the model with no error at all), and a set mostly outside it prints
`aipc-warning: calibration scale: ...` (the calibration function must change). drop_outliers=true
leaves the outlier samples out; it cannot repair a set on the wrong scale. When it would drop
nothing (no outlier, a set on the wrong scale, a format without calibration) the call is refused
before anything is built: the INT8 error comes from elsewhere.

Writes build/model_int8.onnx, with its format and calibration settings in the model's metadata.
Prints e.g. {"ok": true, "artifact": "build/model_int8.onnx", "format": "qdq-s8s8",
"calib_samples": 63, "calib_outliers": 1, "dropped_samples": 1, "bytes": ..., ...}.
"""

from aipc_toolbox import calib, emit
from aipc_toolbox.project import Project


def body(a):
    import onnx

    from ortcommon import artifact_bytes, require_artifact
    from ortquant import FORMATS, build, calibration_feeds, int8_node_count, pre_processed, project_format

    src, dst = require_artifact(a["input"], "FP32 model"), a["output"]
    p = Project()
    fmt = a["format"] or project_format(p)
    dynamic = FORMATS[fmt][4]
    feeds, audit, given, kept = calibration_feeds(p, src, a["drop_outliers"], quiet=dynamic)
    calib.refuse_needless_drop(audit, a["drop_outliers"], dynamic)
    found, maxes, median = audit.outliers, audit.maxes, audit.median
    calib_args = {k: a[k] for k in ("method", "moving_average", "percentile", "nodes_to_exclude", "drop_outliers")}
    # aipc.toml int8_float_nodes (the mixed precision int8_sensitivity chose) is always kept in float.
    calib_args["nodes_to_exclude"] = sorted(set(a["nodes_to_exclude"] or []) | set(p.get("int8_float_nodes") or []))
    emit.note(f"quantizing {src} -> {dst}: {fmt}"
              + (" (weights only; activations quantized at run time, no calibration)" if dynamic else
                 f", {a['method']}{' + moving average' if a['moving_average'] else ''}, {kept} calibration samples")
              + (f", per_channel {a['per_channel']}" if a["per_channel"] is not None else "")
              + (f", excluding nodes {calib_args['nodes_to_exclude']}" if calib_args["nodes_to_exclude"] else ""))
    tmp, pre, pre_mode = pre_processed(src)
    with tmp:
        quant_s = build(pre, dst, fmt, feeds, calib_args, a["per_channel"], calibration_scale=audit.scale_line)
    m = onnx.load(dst, load_external_data=False)
    qdq = sum(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in m.graph.node)
    size, fp32 = artifact_bytes(dst), artifact_bytes(src)
    emit.note(f"wrote {dst}: {size} bytes ({size / fp32:.2f}x of FP32), {int8_node_count(m)} INT8 nodes ({qdq} Q/DQ) in {quant_s:.2f} s")
    return {
        "artifact": dst, "format": fmt, "bytes": size, "fp32_bytes": fp32, "size_ratio": round(size / fp32, 4),
        "method": a["method"], "moving_average": int(a["moving_average"]),
        "per_channel": int(FORMATS[fmt][2] if a["per_channel"] is None else a["per_channel"]),
        "calib_samples": kept, "calib_outliers": len(found), "outlier_samples": found,
        "dropped_samples": given - kept, "calib_max_abs_median": median, "pre_process": pre_mode,
        "calib_max_abs_max": float(maxes.max()), "qdq_nodes": qdq, "int8_nodes": int8_node_count(m),
        "quantize_s": round(quant_s, 3),
    }


if __name__ == "__main__":
    emit.main("quantize", __file__, "build", body)
