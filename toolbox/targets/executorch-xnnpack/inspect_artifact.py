"""executorch-xnnpack target, tool `inspect`: describe a .pte artifact.

From the .pte itself: the file identifier (ET12) and size. From the sidecar `<artifact>.json`
written by export/quantize (a .pte does not record what was delegated; get_delegation_info only
works on the lowered graph at export time): the input/output shapes and dtypes, delegated vs
non-delegated ops, `delegated_ratio` (delegated / all compute ops; tuple
unpacking and symbolic-size nodes are not counted), and the names of the ops left on the
portable CPU kernels. The sidecar must carry the .pte's sha256, else it is refused as stale.
Without a sidecar the shapes come from the program's metadata (executorch.runtime, slower).

Metrics: bytes, file_identifier_ok (1/0), delegated_nodes, non_delegated_nodes,
delegated_subgraphs, compute_ops, non_delegated_compute_ops, delegated_ratio, quantized (1/0),
dynamic_batch (1/0); list non_delegated_ops; min_delegated_ratio (aipc.toml [project], default
1.0: every compute op delegated) and delegation_ok (1 when delegated_ratio >= min_delegated_ratio),
which the contract's delegation gate reads. Partial delegation always prints
`aipc-warning: partial delegation: ...`, also when the project accepts it. With aipc.toml
`run_inputs` (what the app feeds at run time): run_inputs (count) and dynamic_dims_ok (1 when
every size they feed fits the artifact's dims; `aipc-warning: fixed dim: ...` names the others);
dynamic_dims_ok is 1 without run_inputs.
"""
import os

from aipc_toolbox import emit, feed
from aipc_toolbox.project import Project


def _int8_fields(side, p, path):
    """The INT8 program's recorded format (its sidecar) against the one aipc.toml asks for."""
    from aipc_toolbox.int8_choice import float_nodes_fields, format_fields
    from quantize import project_format

    from aipc_toolbox.calib import calibration_fields

    recorded = side.get("quantize") or {}
    return {**format_fields(path, recorded.get("format"), project_format(p), recorded.get("chosen_by")),
            **float_nodes_fields(path, recorded.get("nodes_to_exclude"), p.get("int8_float_nodes"), recorded.get("chosen_by")),
            **calibration_fields(recorded.get("calibration_scale"))}


def body(a):
    import etcommon

    path = etcommon.require_artifact(a["artifact"])
    with open(path, "rb") as f:
        head = f.read(8)
    ident = head[4:8].decode("ascii", "replace")
    out = {"artifact": path, "bytes": os.path.getsize(path), "file_identifier": ident,
           "file_identifier_ok": int(ident.startswith("ET"))}
    if not out["file_identifier_ok"]:
        raise emit.ToolError(f"{path} is not an ExecuTorch program (file identifier {ident!r}, expected 'ET12'); re-export it")
    side = etcommon.read_sidecar(path)
    meta = {"inputs": side.get("inputs"), "outputs": side.get("outputs")} if side else etcommon.program_meta(path)
    out.update(meta)
    for kind in ("inputs", "outputs"):
        for i, t in enumerate(meta[kind] or []):
            emit.note(f"{kind[:-1]} {i}: {t.get('dtype')}{t.get('shape')}")
    p = Project()
    run_items = p.run_inputs()
    names = (side or {}).get("input_names") or p.input_names(len(meta["inputs"] or []))
    expected = [{"name": n, **t} for n, t in zip(names, meta["inputs"] or [])]
    fixed = feed.fixed_dims(feed.where(p), run_items, expected, p.get("dynamic_dims", []),
                             {0: p.get("batch_max", 64), 1: p.get("seq_max", 64)}) if run_items else []
    out.update({"run_inputs": len(run_items), "fixed_dims": fixed, "dynamic_dims_ok": int(not fixed)})
    if side is None:
        emit.note(f"no {etcommon.sidecar_path(path)}: delegation is unknown (a .pte does not record it); "
                  "re-run export or quantize, which write it")
        out["delegation_known"] = 0
        return out
    d = side["delegation"]
    emit.note(d["summary"])
    for r in d["per_op"]:
        emit.note(f"  {r['op']}: delegated {r['delegated']}, not delegated {r['non_delegated']}")
    floor = p.get("min_delegated_ratio", 1.0)
    # an op already rewritten is not offered again, and none when the project accepts this ratio
    # (the rewrite line would then stand for a gate that passed)
    etcommon.warn_partial(d, side.get("rewritten_ops") or (), offer=d["delegated_ratio"] < floor)
    out.update({k: v for k, v in d.items() if k not in ("summary",)})
    if side.get("quantized"):
        out.update(_int8_fields(side, p, path))
    out.update({"delegation_known": 1, "quantized": int(bool(side.get("quantized"))),
                "dynamic_batch": int(bool(side.get("dynamic_batch"))), "batch_max": side.get("batch_max"),
                "dynamic_seq": int(bool(side.get("dynamic_seq"))), "seq_max": side.get("seq_max")})
    out["min_delegated_ratio"] = floor
    out["delegation_ok"] = int(d["delegated_ratio"] >= floor and d["compute_ops"] > 0)
    if d["non_delegated_compute_ops"] and out["delegation_ok"]:
        emit.note(f"accepted by aipc.toml [project] min_delegated_ratio = {floor}")
    return out


if __name__ == "__main__":
    emit.main("inspect", __file__, "inspect", body)
