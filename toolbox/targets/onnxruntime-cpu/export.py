"""onnxruntime-cpu target, tool `export`: export the project's PyTorch model to ONNX.

torch.onnx.export(..., dynamo=True) (torch.export -> decompositions -> ONNX translation), with
the project's input/output names, the requested opset and, optionally, a dynamic batch
dimension (dim 0) and a dynamic sequence dimension (dim 1 of every input of rank >= 2), each a
torch.export.Dim shared by all inputs. Weights go to `<artifact>.data` when external_data is on (the
artifact is then two files). Afterwards the written opset is read back: the exporter writes
opset 18 and converts down, and when the conversion fails it keeps 18 without an error, so a
mismatch is reported as `aipc-warning: opset drift: ...` and `opset_matches: 0`.

Operator rewrites (aipc.toml [project] rewrite_ops plus the `rewrite_ops` argument, see
aipc_toolbox/rewrites.py): when the list is non-empty the model is first captured with
torch.export.export (same dynamic shapes), the listed ops are rewritten at graph level, and that
ExportedProgram is what torch.onnx.export translates; the result then carries `rewritten_ops`.
With no rewrites the module goes to torch.onnx.export as before. When the export fails on an op
the library has, `aipc-warning: rewritable op: aten.x.y (aipc.toml [project] rewrite_ops = [...])` is
printed before the original error.

Prints e.g. {"ok": true, "artifact": "build/model.onnx", "opset": 18, "requested_opset": 17,
"opset_matches": 0, "external_data": "build/model.onnx.data", "bytes": 75000, ...}.
"""
import os
import time

from aipc_toolbox import emit, rewrites
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import dynamic_shapes


def body(a):
    p = Project()
    import onnx
    import torch

    from ortcommon import artifact_bytes, check_external, default_opset, relative_source_paths

    opset = a["opset"] or p["opset"]
    dynamic = p["dynamic_batch"] if a["dynamic_batch"] is None else a["dynamic_batch"]
    seq = p["dynamic_seq"] if a["dynamic_seq"] is None else a["dynamic_seq"]
    out = a["output"]
    model = p.load_model()
    inputs = p.example_inputs()
    names = p.input_names(len(inputs))
    out_names = p.output_names()
    dyn = dynamic_shapes(inputs, dynamic, seq, p["batch_max"], p["seq_max"], p.dynamic_dims(len(inputs)))
    keys = rewrites.requested(p, a.get("rewrite_ops"))
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    for stale in (out, out + ".data"):
        if os.path.exists(stale):
            os.remove(stale)
    emit.note(f"exporting {p['model']} to {out}: opset {opset}, dynamic batch {dynamic}, dynamic seq {seq}, inputs "
              + ", ".join(f"{n}{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}" for n, t in zip(names, inputs)))
    t0 = time.monotonic()
    applied = []
    try:
        if keys:
            ep = torch.export.export(model, inputs, dynamic_shapes=dyn)
            model, applied = rewrites.rewrite_for_export(ep, keys)
        torch.onnx.export(
            model, inputs, out, dynamo=True, opset_version=opset, input_names=names,
            output_names=out_names, dynamic_shapes=dyn, external_data=a["external_data"],
        )
    except Exception as exc:
        rewrites.warn_for_exception(exc, applied)
        raise
    export_s = time.monotonic() - t0
    relative_source_paths(out)
    m = onnx.load(out, load_external_data=False)
    onnx.checker.check_model(out)
    written = default_opset(m)
    if written != opset:
        emit.warn("opset drift", f"requested opset {opset}, artifact has opset {written}")
    files, ext_ok = check_external(m, out)
    sidecar = os.path.join(os.path.dirname(out), files[0]) if files else None
    emit.note(f"wrote {out}" + (f" + {sidecar} (external data: copy both files together)" if sidecar else ""))
    res = {
        "artifact": out,
        "external_data": sidecar,
        "external_data_ok": int(ext_ok),
        "opset": written,
        "requested_opset": opset,
        "opset_matches": int(written == opset),
        "ir_version": m.ir_version,
        "dynamic_batch": int(bool(dynamic)),
        "dynamic_seq": int(bool(seq)),
        "input_names": [i.name for i in m.graph.input],
        "output_names": [o.name for o in m.graph.output],
        "num_nodes": len(m.graph.node),
        "bytes": artifact_bytes(out),
        "export_s": round(export_s, 3),
    }
    if keys:
        res["rewritten_ops"] = applied
    return res


if __name__ == "__main__":
    emit.main("export", __file__, "export", body)
