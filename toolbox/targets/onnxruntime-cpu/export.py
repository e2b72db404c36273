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

The exporter is aipc.toml [project] onnx_exporter: `dynamo` (the
default, above) or `torchscript`, torch.onnx's tracing exporter (dynamo=False; the dynamic dims
become dynamic_axes; no rewrite_ops: those rewrite a torch.export program). When the dynamo
export fails inside torch (capture, decompositions, ONNX translation), `aipc-warning: dynamo
export failed: ...` names the step and the cause, and the setting that makes the next export trace
the module instead (steps 2 and 3: torch.export captured the model, torch's decompositions or the
translation failed); the checks that follow (checker, eager comparison) judge what it wrote.

Prints e.g. {"ok": true, "artifact": "build/model.onnx", "opset": 18, "requested_opset": 17,
"opset_matches": 0, "external_data": "build/model.onnx.data", "bytes": 75000, ...}.
"""
import os
import time

from aipc_toolbox import emit, rewrites
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import dynamic_shapes, export_program, for_dynamic_batch


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
    inputs = for_dynamic_batch(p.example_inputs(), dynamic)
    names = p.input_names(len(inputs))
    out_names = p.output_names()
    dyn = dynamic_shapes(inputs, dynamic, seq, p["batch_max"], p["seq_max"], p.dynamic_dims(len(inputs)))
    keys = rewrites.requested(p, a.get("rewrite_ops"))
    exporter = p["onnx_exporter"]
    if exporter == "torchscript" and keys:
        raise emit.ToolError(f"onnx_exporter = \"torchscript\" cannot apply rewrite_ops {keys} (they rewrite a torch.export "
                             "program): clear one of the two settings (set_project_option)")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    for stale in (out, out + ".data"):
        if os.path.exists(stale):
            os.remove(stale)
    emit.note(f"exporting {p['model']} to {out} ({exporter} exporter): opset {opset}, dynamic batch {dynamic}, dynamic seq {seq}, inputs "
              + ", ".join(f"{n}{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}" for n, t in zip(names, inputs)))
    t0 = time.monotonic()
    applied = []
    try:
        if exporter == "torchscript":
            _export_traced(torch, model, inputs, out, opset, names, out_names, dyn, a["external_data"])
        else:
            extra = p.dynamic_dims(len(inputs))
            if keys or extra:  # captured here: the rewrites, or the range dynamic_dims' code allows
                ep, dyn = export_program(model, inputs, dynamic, seq, p["batch_max"], p["seq_max"], extra)
                model, applied = rewrites.rewrite_for_export(ep, keys)
            torch.onnx.export(
                model, inputs, out, dynamo=True, opset_version=opset, input_names=names,
                output_names=out_names, dynamic_shapes=dyn, external_data=a["external_data"],
            )
    except Exception as exc:
        rewritable = rewrites.warn_for_exception(exc, applied)
        if exporter == "dynamo" and not rewritable:
            _warn_dynamo_failed(exc)  # a rewrite of the named op is the narrower repair when there is one
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
    if exporter != "dynamo":
        res["exporter"] = exporter  # only when not the default: a default export prints what it always did
    return res


def _export_traced(torch, model, inputs, out, opset, names, out_names, dyn, external_data):
    """torch.onnx's tracing exporter, with the dynamic dims of `dyn` (export's dynamic_shapes) as
    dynamic_axes. Its weights are written inside the .onnx; with external_data they move out to
    `<artifact>.data` afterwards, as the dynamo exporter writes them."""
    import warnings

    import onnx

    axes = {}
    for name, dims in zip(names, dyn or ()):
        if dims:
            axes[name] = {d: getattr(dim, "__name__", f"dim{d}") for d, dim in dims.items()}
    if axes and any(0 in d for d in axes.values()):
        for name in out_names:
            axes[name] = {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's TracerWarnings and the exporter's deprecation note
        torch.onnx.export(model, inputs, out, dynamo=False, opset_version=opset, input_names=names,
                          output_names=out_names, dynamic_axes=axes or None)
    if external_data:
        m = onnx.load(out)
        onnx.save_model(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(out) + ".data", size_threshold=0)


def _warn_dynamo_failed(exc):
    """Name the step of torch.onnx's dynamo export that failed and the setting that exports by
    tracing instead. torch's own message says which step (`... This is step 2/3 of exporting the
    model to ONNX`); its cause is the chained exception."""
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # torch colours "This is step N/3"
    step = re.search(r"Failed to ([^.\n]+)\. This is step (\d)/(\d)", text)
    if step is None or step.group(2) == "1":
        return  # step 1 is torch.export's capture: its causes (data-dependent branches, shapes) have their repairs
    cause = exc.__cause__ or exc.__context__
    why = f"{type(cause).__name__}: {str(cause).splitlines()[0][:240]}" if cause is not None else ""
    emit.warn("dynamo export failed", f"step {step.group(2)}/{step.group(3)}, {step.group(1)}"
              + (f" ({why})" if why else "")
              + "; aipc.toml [project] onnx_exporter = \"torchscript\" exports by tracing the module instead")


if __name__ == "__main__":
    emit.main("export", __file__, "export", body)
