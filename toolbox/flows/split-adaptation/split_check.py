"""split adaptation, tool `split`: cut the project's model at aipc.toml `split_head` and check that
the two parts make the whole: head(backbone(x)) against model(x) on the inputs of eval_data.

A head that is not the last thing the model applies to the backbone's output (an activation or a
second branch after it, or a head fed by an intermediate tensor) fails here, with the Linear
modules of the model listed as candidates.

Metrics: split_ok (1/0), max_abs_err, feature_dim, head_params, backbone_params, candidates.
"""
from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib

TOLERANCE = 1e-4


def body(a):
    p = Project()
    split = splitlib.Split(p)
    inputs, _ = p.eval_data()
    inputs = tuple(t[:256] for t in inputs)
    err, feats = splitlib.verify_split(split, inputs)
    ok = err <= TOLERANCE
    candidates = splitlib.head_candidates(split.model)[:6]
    count = lambda m: sum(q.numel() for q in m.parameters())  # noqa: E731
    note(f"split at {split.head_path!r}: backbone {count(split.backbone):,} parameters -> features "
         f"{tuple(feats.shape[1:])}, head {type(split.head).__name__} {count(split.head):,} parameters")
    note(f"head(backbone(x)) vs model(x) on {inputs[0].shape[0]} eval inputs: max relative error {err:.3g} "
         f"(tolerance {TOLERANCE:g})")
    if not ok:
        emit.warn("split mismatch", f"{p._where('split_head')}: split_head = {split.head_path!r}: head(backbone(x)) "
                  f"differs from model(x) by {err:.3g}; the model does more after that module, or feeds it another tensor. "
                  f"Linear modules of the model, last first: {', '.join(candidates)}")
    return {"split_ok": int(ok), "max_abs_err": err if err != float("inf") else 1e30, "split_head": split.head_path,
            "feature_dim": int(feats[0].numel()), "head_params": count(split.head),
            "backbone_params": count(split.backbone), "candidates": candidates}


if __name__ == "__main__":
    emit.main("split", __file__, "split", body)
