"""onnxruntime-cpu target, tool `inspect`: describe an .onnx artifact without running it.

Reports the graph inputs/outputs (name, shape with symbolic dims as strings, dtype), the opset
and IR version, the node count and an op histogram (`ops.<OpType>`), the QDQ node count, the
external-data files and whether they exist next to the model, and the project's requested
opset against the written one (silent opset drift). Also runs onnx.checker.

Metrics: opset, ir_version, requested_opset, opset_matches (1/0), external_data_ok (1/0),
checker_ok (1/0), num_nodes, qdq_nodes, dynamic_batch (1/0), bytes, run_inputs (count),
dynamic_dims_ok (1/0: every size the run inputs feed fits the artifact's dims; 1 without run_inputs).
An INT8 artifact also gets int8_nodes (quantized ops of any format), int8_format (as recorded by
quantize) and int8_format_matches (1 when that is the format aipc.toml int8_format asks for: a
stale artifact after the setting changed gives 0, and quantize {} rebuilds it), int8_float_nodes
(the nodes it keeps in float) and int8_float_nodes_match (0 when it quantizes a node aipc.toml
int8_float_nodes keeps in float, or keeps nodes in float that int8_sensitivity chose and aipc.toml
does not record yet).
Silent failures print `aipc-warning: opset drift: ...` / `aipc-warning: external data missing: ...`.
"""
from aipc_toolbox import emit, feed
from aipc_toolbox.project import Project


def _dims(vi):
    t = vi.type.tensor_type
    return [d.dim_param if d.dim_param else (d.dim_value if d.HasField("dim_value") else "?") for d in t.shape.dim]


def _int8_fields(m, p, path):
    """int8_nodes, and for an INT8 artifact its recorded format against the project's."""
    from aipc_toolbox.calib import calibration_fields
    from aipc_toolbox.int8_choice import float_nodes_fields, format_fields
    from ortquant import META_CALIBRATION, META_CHOSEN, META_FORMAT, int8_node_count, metadata, project_format, recorded

    count = int8_node_count(m)
    if not count:
        return {"int8_nodes": 0}
    meta = metadata(m)
    _fmt, settings = recorded(path)
    return {"int8_nodes": count, **format_fields(path, meta.get(META_FORMAT), project_format(p), meta.get(META_CHOSEN)),
            **float_nodes_fields(path, settings.get("nodes_to_exclude"), p.get("int8_float_nodes"), meta.get(META_CHOSEN)),
            **calibration_fields(meta.get(META_CALIBRATION))}


def body(a):
    import onnx

    from ortcommon import artifact_bytes, check_external, default_opset, require_artifact

    path = require_artifact(a["artifact"])
    p = Project()
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception as e:  # noqa: BLE001
        raise emit.ToolError(f"{path} is not a readable ONNX model: {emit.describe(e)}; re-export it") from e
    files, ext_ok = check_external(m, path)
    try:
        onnx.checker.check_model(path)
        checker_ok, checker_error = 1, None
    except Exception as e:  # noqa: BLE001 - report, do not stop: the gates decide
        checker_ok, checker_error = 0, emit.describe(e)
        emit.note(f"onnx.checker: {checker_error}")
    opset = default_opset(m)
    requested = p["opset"]
    if opset != requested:
        emit.warn("opset drift", f"requested opset {requested}, artifact has opset {opset}")
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    dtype = lambda vi: onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type).name  # noqa: E731
    inputs = [{"name": i.name, "shape": _dims(i), "dtype": dtype(i)} for i in m.graph.input]
    outputs = [{"name": o.name, "shape": _dims(o), "dtype": dtype(o)} for o in m.graph.output]
    for kind, vals in (("input", inputs), ("output", outputs)):
        for v in vals:
            emit.note(f"{kind} {v['name']}: {v['dtype']}{v['shape']}")
    emit.note("ops: " + ", ".join(f"{k} x{v}" for k, v in sorted(ops.items())))
    int8 = _int8_fields(m, p, path)
    dyn = bool(inputs) and isinstance(inputs[0]["shape"][0] if inputs[0]["shape"] else 0, str)
    run_items = p.run_inputs()
    fixed = feed.fixed_dims(feed.where(p), run_items, inputs, p.get("dynamic_dims", []),
                             {0: p.get("batch_max", 64), 1: p.get("seq_max", 64)}) if run_items else []
    return {
        "artifact": path,
        "opset": opset,
        "ir_version": m.ir_version,
        "requested_opset": requested,
        "opset_matches": int(opset == requested),
        "opset_imports": {(o.domain or "ai.onnx"): o.version for o in m.opset_import},
        "external_data_files": files,
        "external_data_ok": int(ext_ok),
        "checker_ok": checker_ok,
        "checker_error": checker_error,
        "num_nodes": len(m.graph.node),
        "qdq_nodes": ops.get("QuantizeLinear", 0) + ops.get("DequantizeLinear", 0),
        "ops": ops,
        "inputs": inputs,
        "outputs": outputs,
        "dynamic_batch": int(dyn),
        "bytes": artifact_bytes(path),
        "run_inputs": len(run_items),
        "fixed_dims": fixed,
        "dynamic_dims_ok": int(not fixed),
        **int8,
    }


if __name__ == "__main__":
    emit.main("inspect", __file__, "inspect", body)
