"""executorch-xnnpack target, tool `export`: export the project's PyTorch model to a .pte.

torch.export.export (with a dynamic batch and/or sequence torch.export.Dim when asked: dim 0, and
dim 1 of every input of rank >= 2) ->
to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]) -> to_executorch() ->
build/model.pte. The delegation breakdown (get_delegation_info: delegated vs non-delegated
ops) is only known here, so it is written next to the artifact as build/model.pte.json, with
the artifact's sha256; inspect reads it. Ops left on the portable CPU kernels print
`aipc-warning: partial delegation: ...`.

Operator rewrites (aipc.toml [project] rewrite_ops plus the `rewrite_ops` argument, see
aipc_toolbox/rewrites.py) are applied to the ExportedProgram before lowering; the result then
carries `rewritten_ops`. When lowering fails on, or leaves undelegated, an op the library has,
`aipc-warning: rewritable op: aten.x.y (aipc.toml [project] rewrite_ops = [...])` is printed (before the
original error, which is re-raised).

Prints e.g. {"ok": true, "artifact": "build/model.pte", "bytes": 80000, "delegated_ratio": 1.0,
"non_delegated_compute_ops": 0, ...}.
"""
import os
import time

from aipc_toolbox import emit, rewrites
from aipc_toolbox.project import Project
from aipc_toolbox.tensors import TRACE_BATCH_MAX, export_program, for_dynamic_batch


def body(a):
    import etcommon  # sets QNN_SDK_ROOT before executorch is imported

    p = Project()
    dynamic = p["dynamic_batch"] if a["dynamic_batch"] is None else a["dynamic_batch"]
    seq = p["dynamic_seq"] if a["dynamic_seq"] is None else a["dynamic_seq"]
    out = a["output"]
    keys = rewrites.requested(p, a.get("rewrite_ops"))
    model = p.load_model()
    inputs = p.example_inputs()
    for stale in (out, etcommon.sidecar_path(out)):
        if os.path.exists(stale):
            os.remove(stale)
    emit.note(f"exporting {p['model']} to {out}: torch.export, dynamic batch {dynamic}, dynamic seq {seq}, inputs "
              + ", ".join(f"{tuple(t.shape)}:{str(t.dtype).replace('torch.', '')}" for t in inputs))
    t0 = time.monotonic()
    traced = for_dynamic_batch(inputs, dynamic, min(p["batch_max"], TRACE_BATCH_MAX))
    ep, _shapes = export_program(model, traced, dynamic, seq, p["batch_max"], p["seq_max"], p.dynamic_dims(len(traced)))
    ep, applied = rewrites.rewrite_for_export(ep, keys)
    export_s = time.monotonic() - t0
    emit.note(f"torch.export done in {export_s:.2f} s; lowering with XnnpackPartitioner")
    meta = {
        "dynamic_batch": bool(dynamic), "batch_max": p["batch_max"], "example_batch": int(inputs[0].shape[0]),
        "dynamic_seq": bool(seq), "seq_max": p["seq_max"], "quantized": False, "input_names": p.input_names(len(inputs)), "output_names": p.output_names(),
    }
    if keys:  # quantize re-applies the requested list (the INT8 graph must see the same rewrites)
        meta["rewrite_ops"], meta["rewritten_ops"] = keys, applied
    side = etcommon.lower_and_save(ep, out, meta, rewritten=applied)
    d = side["delegation"]
    res = {"artifact": out, "sidecar": etcommon.sidecar_path(out), "bytes": side["bytes"], "dynamic_batch": int(bool(dynamic)),
           "dynamic_seq": int(bool(seq)), **{k: v for k, v in d.items() if k not in ("per_op", "summary")},
           "export_s": round(export_s, 3), "lower_s": side["lower_s"]}
    if keys:
        res["rewritten_ops"] = applied
    return res


if __name__ == "__main__":
    emit.main("export", __file__, "export", body)
