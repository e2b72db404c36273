"""executorch-xnnpack target, tool `inspect`: describe a .pte artifact.

From the .pte itself: the file identifier (ET12), size, method names and the forward method's
input/output shapes and dtypes (program metadata, read without loading the method, so no
kernels are needed). From the sidecar `<artifact>.json` written by export/quantize (a .pte does
not record what was delegated; get_delegation_info only works on the lowered graph at export
time): delegated vs non-delegated ops, `delegated_ratio` (delegated / all compute ops; tuple
unpacking and symbolic-size nodes are not counted), and the names of the ops left on the
portable CPU kernels. The sidecar must carry the .pte's sha256, else it is refused as stale.

Metrics: bytes, file_identifier_ok (1/0), delegated_nodes, non_delegated_nodes,
delegated_subgraphs, compute_ops, non_delegated_compute_ops, delegated_ratio, quantized (1/0),
dynamic_batch (1/0); list non_delegated_ops. Partial delegation prints
`aipc-warning: partial delegation: ...`.
"""
import aipc_toolbox

aipc_toolbox.script_dir_last(__file__)  # keep the stdlib inspect/profile ahead of ours

import os

from aipc_toolbox import emit


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
    meta = etcommon.program_meta(path)
    out.update(meta)
    for kind in ("inputs", "outputs"):
        for i, t in enumerate(meta[kind]):
            emit.note(f"{kind[:-1]} {i}: {t['dtype']}{t['shape']}")
    side = etcommon.read_sidecar(path)
    if side is None:
        emit.note(f"no {etcommon.sidecar_path(path)}: delegation is unknown (a .pte does not record it); "
                  "re-run export or quantize, which write it")
        out["delegation_known"] = 0
        return out
    d = side["delegation"]
    emit.note(d["summary"])
    for r in d["per_op"]:
        emit.note(f"  {r['op']}: delegated {r['delegated']}, not delegated {r['non_delegated']}")
    etcommon.warn_partial(d)
    out.update({k: v for k, v in d.items() if k not in ("summary",)})
    out.update({"delegation_known": 1, "quantized": int(bool(side.get("quantized"))),
                "dynamic_batch": int(bool(side.get("dynamic_batch"))), "batch_max": side.get("batch_max")})
    return out


if __name__ == "__main__":
    emit.main("inspect", __file__, "inspect", body)
