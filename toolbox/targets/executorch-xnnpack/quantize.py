"""executorch-xnnpack target, tool `quantize`: INT8 with PT2E and the XNNPACK quantizer.

torch.export.export(model).module() -> prepare_pt2e(XNNPACKQuantizer with
get_symmetric_quantization_config(is_per_channel=..., is_dynamic=...)) -> calibrate on the project's
calibration_data -> convert_pt2e -> torch.export.export -> to_edge_transform_and_lower
(XnnpackPartitioner) -> build/model_int8.pte, plus its delegation sidecar
build/model_int8.pte.json (like export).

The INT8 format (`format`, else aipc.toml [project] int8_format, else static-channel), one of
FORMATS: static-channel (activations calibrated, per-channel weights), static-tensor (per-tensor
weights), dynamic-channel (activations quantized at run time, per-channel weights; no
calibration). Which one XNNPACK runs fastest depends on the model and the CPU; int8_formats
measures them. The sidecar records the format and the calibration settings (`quantize`).
Graph nodes named by `nodes_to_exclude` and aipc.toml int8_float_nodes stay in float (the
quantizer's filter skips them; int8_sensitivity finds the fewest that bring INT8 within the
accuracy thresholds); a name the captured graph does not have is refused. A convolution kept in
float takes the ops that write its input and read its output with it (XNNPACK builds a float
convolution only between float tensors: `xnnpack_float_closure`); the sidecar lists those as
`float_for_xnnpack`.

Activation observer: XNNPACK's default is a HistogramObserver (observer="histogram");
observer="minmax" takes the extremes, and moving_average=true uses a
MovingAverageMinMaxObserver (averaging_constant 0.01) that dampens a single extreme sample.
Whatever the observer, XNNPACK's config floors each activation scale at eps = 2^-12; a tensor
whose calibrated range needs a smaller scale would get a few INT8 steps or none (every value
rounds to zero: deep nets whose activations shrink block by block collapse that way). Such
tensors are counted after calibration; the model is then calibrated again with eps below them
(`scale_floor`), with an `aipc-warning: activation range under the scale floor` line, and the
result and sidecar carry `activations_under_floor` and `observer_eps`.

The INT8 program takes the inputs the FP32 one does: a dynamic batch / sequence dim is, by
default, the one build/model.pte was exported with (its sidecar), else aipc.toml's.

The calibration inputs are checked every time against the inputs the model is evaluated on
(aipc_toolbox/calib.py: eval_data, else example_inputs; no tuned factor): a sample above their
range prints `aipc-warning: calibration outlier: sample i ...` (it stretches the INT8 ranges and
can collapse the model with no error at all), and a set mostly outside it prints
`aipc-warning: calibration scale: ...` (the calibration function must change). drop_outliers=true
leaves the outlier samples out; it cannot repair a set on the wrong scale. When it would drop
nothing (no outlier, a set on the wrong scale, a format without calibration) the call is refused
before anything is built: the INT8 error comes from elsewhere.

Operator rewrites: the ops build/model.pte was exported with (its sidecar's `rewrite_ops`), plus
aipc.toml [project] rewrite_ops, plus the `rewrite_ops` argument, are rewritten in the captured
float graph before prepare_pt2e (aipc_toolbox/rewrites.py: only those ops are decomposed, so the
quantizer's patterns are untouched); the result then carries `rewritten_ops`.
"""
import os
import time
from types import SimpleNamespace

from aipc_toolbox import calib, emit, rewrites
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import TRACE_BATCH_MAX, export_program, for_dynamic_batch

DEFAULT_FORMAT = "static-channel"
# name: (per-channel weights, dynamic activations)
FORMATS = {"static-channel": (True, False), "static-tensor": (False, False), "dynamic-channel": (True, True)}
# Calibration settings int8_formats reuses from the current INT8 artifact's sidecar.
CALIB_KEYS = ("observer", "moving_average", "drop_outliers", "nodes_to_exclude")


def project_format(p):
    """The format aipc.toml asks for (`int8_format`), checked against this target's list."""
    from aipc_toolbox.int8_choice import project_format as checked

    return checked(p, "executorch-xnnpack", FORMATS, DEFAULT_FORMAT)


def _config(per_channel, observer, moving_average, dynamic=False):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import get_symmetric_quantization_config

    cfg = get_symmetric_quantization_config(is_per_channel=per_channel, is_dynamic=dynamic)
    if dynamic or (observer == "histogram" and not moving_average):
        return cfg
    import dataclasses

    from torchao.quantization.pt2e.observer import MinMaxObserver, MovingAverageMinMaxObserver

    ctr = (MovingAverageMinMaxObserver.with_args(averaging_constant=0.01, eps=2**-12) if moving_average
           else MinMaxObserver.with_args(eps=2**-12))
    act = dataclasses.replace(cfg.input_activation, observer_or_fake_quant_ctr=ctr)
    return dataclasses.replace(cfg, input_activation=act, output_activation=act)


def _batches(samples, fixed):
    """Calibration inputs: one per sample, or re-cut to a static batch size."""
    import torch

    if fixed is None or all(s[0].shape[0] == fixed for s in samples):
        return [tuple(s) for s in samples]
    stacked = [torch.cat([s[i] for s in samples]) for i in range(len(samples[0]))]
    n = stacked[0].shape[0]
    out = []
    for start in range(0, n, fixed):
        part = [t[start:start + fixed] for t in stacked]
        if part[0].shape[0] < fixed:
            part = [torch.cat([t, t[-1:].repeat(fixed - t.shape[0], *[1] * (t.dim() - 1))]) for t in part]
        out.append(tuple(part))
    return out


def float_nodes(p, a):
    """The nodes left in float: the `nodes_to_exclude` argument and aipc.toml int8_float_nodes."""
    return sorted(set(a.get("nodes_to_exclude") or []) | set(p.get("int8_float_nodes") or []))


def check_node_names(graph, names, p):
    """Refuse float-node names the captured graph does not have (a typo would quantize everything)."""
    known = {n.name for n in graph.nodes}
    unknown = [n for n in names if n not in known]
    if unknown:
        ops = sorted(n.name for n in graph.nodes if n.op == "call_function")
        from_toml = [n for n in unknown if n in (p.get("int8_float_nodes") or [])]
        raise emit.ToolError(
            f"no node {unknown} in the captured graph"
            + (f" ({from_toml} from {p._where('int8_float_nodes')} int8_float_nodes: stale after the model's export "
               "changed? clear it with set_project_option {\"key\": \"int8_float_nodes\", \"value\": []}, then "
               "int8_sensitivity chooses again)" if from_toml
               else " (from the nodes_to_exclude argument)")
            + f"; its ops: {', '.join(ops[:40])}" + (" ..." if len(ops) > 40 else ""))


# Ops that only move or reshape a tensor: the XNNPACK quantizer gives their output their input's
# quantization, so the op that really writes a tensor is found back through them.
SHAPE_OPS = ("view", "reshape", "flatten", "permute", "squeeze", "unsqueeze", "clone", "contiguous", "_to_copy",
             "dropout", "expand", "transpose")
CONVOLUTIONS = ("conv1d", "conv2d", "conv3d", "convolution", "conv_transpose")


def xnnpack_float_closure(graph, excluded):
    """The float set XNNPACK can build for `excluded`: a convolution kept in float needs the
    tensors it reads and writes in float too. Measured on ExecuTorch 1.5.1: a float convolution
    whose output an INT8 op reads (a quantize right after it) lowers but does not load ("Failed
    to create (depthwise) convolution node ... xnn_status_invalid_parameter"), and one that reads
    an INT8 op's output does not lower ("Weight and Input should both be quantized"); linear
    layers have no such limit. So for each convolution in the set, the op that writes its input
    (back through shape ops) and the ops that read its output join it, and so on for a
    convolution that joins. Returns (the closed set, sorted; the nodes it added)."""
    nodes = {n.name: n for n in graph.nodes}

    def is_conv(node):
        return node is not None and node.op == "call_function" and any(c in str(node.target) for c in CONVOLUTIONS)

    keep = set(excluded)
    queue = [name for name in excluded if is_conv(nodes.get(name))]
    while queue:
        conv = nodes[queue.pop()]
        joined = []
        src = conv.args[0] if conv.args else None
        while hasattr(src, "op") and src.op == "call_function":
            joined.append(src.name)
            if not any(op in str(src.target) for op in SHAPE_OPS) or not src.args:
                break
            src = src.args[0]
        joined += [user.name for user in conv.users if user.op == "call_function"]
        for name in joined:
            if name not in keep:
                keep.add(name)
                if is_conv(nodes[name]):
                    queue.append(name)
    return sorted(keep), sorted(keep - set(excluded))


def pt2e_convert(module, cal, config, excluded=(), report=None, fold_quantize=True):
    """prepare_pt2e (XNNPACKQuantizer with `config`, the `excluded` graph nodes left in float),
    calibrate on `cal`, convert_pt2e: the quantized reference module (Q/DQ around float ops;
    with `fold_quantize` False each weight stays a float constant, batch norms folded in, read
    through its quantize node, so that an analysis can pass it through).
    When calibration finds activations under the config's scale floor (`scale_floor`), it is
    prepared and calibrated again with the floor lowered below them; `report` (a dict) gets what
    scale_floor measured."""
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import XNNPACKQuantizer
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from torchao.quantization.pt2e.quantizer import QuantizationAnnotation
    from torchao.quantization.pt2e.quantizer.quantizer import Q_ANNOTATION_KEY

    skip = set(excluded)

    class KeepFloat(XNNPACKQuantizer):
        """The XNNPACK quantizer, with the excluded nodes marked as annotated (with nothing to
        quantize) before its annotators run: some annotators ignore the filter function (in
        ExecuTorch 1.5.1 `cat` quantizes its inputs and output whatever the filter says) but
        all of them skip a node that is already annotated."""

        def annotate(self, model):
            for node in model.graph.nodes:
                if node.name in skip:
                    node.meta[Q_ANNOTATION_KEY] = QuantizationAnnotation(_annotated=True)
            return super().annotate(model)

    def calibrated(cfg, source):
        quantizer = KeepFloat().set_global(cfg)
        if skip:
            quantizer.set_filter_function(lambda node: node.name not in skip)
        prepared = prepare_pt2e(source, quantizer)
        with torch.no_grad():
            for batch in cal:
                prepared(*batch)
        return prepared

    # prepare_pt2e changes the module it is given: keep a copy for a second calibration.
    import copy

    pristine = copy.deepcopy(module)
    prepared = calibrated(config, module)
    floor = scale_floor(prepared, config)
    if report is not None:
        report.update(floor)
    if floor.get("under_floor"):
        prepared = calibrated(with_eps(config, floor["observer_eps"]), pristine)
    return convert_pt2e(prepared, fold_quantize=fold_quantize)


# XNNPACK's quantization config floors every activation scale at its observers' eps (2^-12): a
# tensor whose whole range is below about 255 * eps (0.06) then gets a handful of INT8 steps, and
# one below eps gets none (every value rounds to zero). Deep nets whose activations shrink block
# by block (gates near 0.5, SiLU near the origin, random or badly scaled weights) collapse that
# way while onnxruntime's quantizer, which has no floor, keeps them.
SMALLEST_EPS = 2.0 ** -40


def scale_floor(prepared, config):
    """After calibration: which per-tensor activation observers the eps floor would bind, and the
    eps that frees them all ({} for a dynamic config). Keys: activation_tensors, under_floor,
    smallest_range, config_eps, observer_eps (the eps the build must use: the config's, or lower)."""
    import torch
    from torchao.quantization.pt2e.observer import ObserverBase

    spec = config.input_activation
    made = getattr(getattr(spec, "observer_or_fake_quant_ctr", None), "p", None)
    if spec is None or spec.is_dynamic or made is None:
        return {}  # dynamic, or an observer built without with_args: its floor cannot be read or set
    eps = float(made.keywords.get("eps", torch.finfo(torch.float32).eps))
    tensors, scales = 0, []
    for module in prepared.modules():
        if not isinstance(module, ObserverBase) or not hasattr(module, "min_val"):
            continue
        lo, hi = module.min_val, module.max_val
        if lo.numel() != 1 or not torch.isfinite(lo).all() or not torch.isfinite(hi).all():
            continue  # per-channel weight observers, or an observer that saw nothing
        tensors += 1
        span = float(max(hi.item(), 0.0) - min(lo.item(), 0.0))
        if span > 0:
            scales.append(span / float(module.quant_max - module.quant_min))
    under = [x for x in scales if x < eps]
    out = {"activation_tensors": tensors, "under_floor": len(under), "config_eps": eps, "observer_eps": eps}
    if under:
        out["smallest_range"] = min(under) * 255.0
        out["observer_eps"] = max(min(under) / 2.0, SMALLEST_EPS)
    return out


def with_eps(config, eps):
    """`config` with every activation observer's eps (its scale floor) set to `eps`."""
    import dataclasses

    def lowered(spec):
        if spec is None or spec.is_dynamic:
            return spec
        made = spec.observer_or_fake_quant_ctr.p  # the functools.partial under torchao's wrapper
        return dataclasses.replace(spec, observer_or_fake_quant_ctr=made.func.with_args(**{**made.keywords, "eps": eps}))

    return dataclasses.replace(config, input_activation=lowered(config.input_activation),
                               output_activation=lowered(config.output_activation))


def plan(p, a):
    """What a build starts from: the settings (arguments, else the FP32 program's sidecar, else
    aipc.toml), the model, its example inputs and the audited calibration batches."""
    import etcommon  # sets QNN_SDK_ROOT before executorch is imported

    try:
        fp32_side = etcommon.read_sidecar("build/model.pte") if os.path.isfile("build/model.pte") else None
    except emit.ToolError:
        fp32_side = None
    fp32_side = fp32_side or {}
    q = SimpleNamespace()
    q.dynamic = a["dynamic_batch"] if a["dynamic_batch"] is not None else fp32_side.get("dynamic_batch", p["dynamic_batch"])
    q.seq = a["dynamic_seq"] if a["dynamic_seq"] is not None else fp32_side.get("dynamic_seq", p["dynamic_seq"])
    q.keys = rewrites.requested(p, list(fp32_side.get("rewrite_ops") or []) + list(a.get("rewrite_ops") or []))
    q.fmt = a.get("format") or project_format(p)
    q.per_channel, q.dyn_act = FORMATS[q.fmt]
    q.per_channel = q.per_channel if a["per_channel"] is None else bool(a["per_channel"])
    q.model = p.load_model()
    q.inputs = for_dynamic_batch(p.example_inputs(), q.dynamic, min(p["batch_max"], TRACE_BATCH_MAX))
    q.samples = p.calibration_data()
    q.audit, q.kept = calib.checked_samples(p, q.samples, a["drop_outliers"], quiet=q.dyn_act)
    # the dynamic dims as export_program takes them; q.shapes is set by capture (the shapes the
    # float program was captured with, also used to export the converted one)
    q.dims = (q.dynamic, q.seq, p["batch_max"], p["seq_max"], p.dynamic_dims(len(q.inputs)))
    q.shapes = None
    q.cal = _batches(q.kept, None if q.dynamic else int(q.inputs[0].shape[0]))
    q.config = _config(q.per_channel, a["observer"], a["moving_average"], q.dyn_act)
    return q


def capture(q):
    """The float program as quantize captures it (operator rewrites applied): (module, applied)."""
    captured, q.shapes = export_program(q.model, q.inputs, *q.dims)
    captured, applied = rewrites.rewrite_for_export(captured, q.keys)
    return captured.module(), applied


def body(a):
    import etcommon  # sets QNN_SDK_ROOT before executorch is imported
    import torch

    p = Project()
    q = plan(p, a)
    calib.refuse_needless_drop(q.audit, a["drop_outliers"], q.dyn_act)
    out = a["output"]
    keys, fmt, per_channel, dyn_act = q.keys, q.fmt, q.per_channel, q.dyn_act
    dynamic, seq, inputs, samples, kept, audit = q.dynamic, q.seq, q.inputs, q.samples, q.kept, q.audit
    found, maxes, median = audit.outliers, audit.maxes, audit.median
    excluded = float_nodes(p, a)
    emit.note(f"PT2E int8 {fmt}: XNNPACKQuantizer, dynamic batch {bool(dynamic)}, dynamic seq {bool(seq)}, per_channel {per_channel}, "
              + ("activations quantized at run time" if dyn_act else
                 f"activation observer {'moving_average' if a['moving_average'] else a['observer']}, {len(kept)} calibration samples")
              + (f", nodes kept in float {excluded}" if excluded else ""))
    for stale in (out, etcommon.sidecar_path(out)):
        if os.path.exists(stale):
            os.remove(stale)
    t0 = time.monotonic()
    captured, applied = capture(q)
    check_node_names(captured.graph, excluded, p)
    built_float, joined = xnnpack_float_closure(captured.graph, excluded)
    if joined:
        emit.note(f"kept in float with them so that XNNPACK can build the program: {joined} (a convolution kept "
                  "in float needs the tensors it reads and writes in float)")
    floor = {}
    converted = pt2e_convert(captured, q.cal, q.config, built_float, report=floor)
    if floor.get("under_floor"):
        emit.warn("activation range under the scale floor",
                  f"{floor['under_floor']} of {floor['activation_tensors']} activation tensors span less than the "
                  f"observers' smallest scale ({floor['config_eps']:.3g}) x 255 (the smallest spans "
                  f"{floor['smallest_range']:.3g}): calibrated again with eps {floor['observer_eps']:.3g}")
    ep = torch.export.export(converted, inputs, dynamic_shapes=q.shapes)
    quant_s = time.monotonic() - t0
    emit.note(f"calibrated and converted in {quant_s:.2f} s; lowering with XnnpackPartitioner")
    side = etcommon.lower_and_save(ep, out, {**({"rewrite_ops": keys, "rewritten_ops": applied} if keys else {}),
        "dynamic_batch": bool(dynamic), "batch_max": p["batch_max"], "example_batch": int(inputs[0].shape[0]),
        "dynamic_seq": bool(seq), "seq_max": p["seq_max"], "quantized": True, "input_names": p.input_names(len(inputs)), "output_names": p.output_names(),
        "quantize": {"format": fmt, "per_channel": per_channel, "observer": a["observer"], "moving_average": a["moving_average"],
                     "drop_outliers": bool(a["drop_outliers"]), "nodes_to_exclude": excluded,
                     **({"float_for_xnnpack": joined} if joined else {}),
                     "calib_samples": len(kept), "dropped_samples": len(samples) - len(kept),
                     **({"observer_eps": floor["observer_eps"], "activations_under_floor": floor["under_floor"]}
                        if floor else {}),
                     **({"calibration_scale": audit.scale_line} if audit.scale_line and not dyn_act else {})},
    }, rewritten=applied)
    d = side["delegation"]
    fp32 = "build/model.pte"
    res = {"artifact": out, "sidecar": etcommon.sidecar_path(out), "bytes": side["bytes"], "format": fmt,
           "per_channel": int(per_channel), "observer": a["observer"], "moving_average": int(a["moving_average"]),
           "calib_samples": len(kept), "calib_outliers": len(found), "outlier_samples": found,
           "dropped_samples": len(samples) - len(kept), "calib_max_abs_median": median, "calib_max_abs_max": float(maxes.max()),
           **{k: v for k, v in d.items() if k not in ("per_op", "summary")},
           "quantize_s": round(quant_s, 3), "lower_s": side["lower_s"]}
    if floor:
        res.update(activations_under_floor=floor["under_floor"], observer_eps=floor["observer_eps"])
    if keys:
        res["rewritten_ops"] = applied
    if os.path.isfile(fp32):
        res["fp32_bytes"] = os.path.getsize(fp32)
        res["size_ratio"] = round(side["bytes"] / res["fp32_bytes"], 4)
    return res


if __name__ == "__main__":
    emit.main("quantize", __file__, "build", body)
