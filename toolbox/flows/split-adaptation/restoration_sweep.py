"""split adaptation, tool `restoration_sweep`: build the INT8 backbone with each quantization
restoration — none, per_channel, cle, cle + per_channel — in a scratch folder, measure each one's
features against the eager FP32 backbone on eval_data (as compare_features does), and print the
table. The least restoration that passes the feature gate (fewest techniques, then the highest
cosine) is named with the call that records it; the artifacts in build/ are not touched.

Metrics: measured (list of rows), passing (names), best (list or null), gate (the thresholds),
next_calls (the set_project_option that records best, when one passes).
"""
import json
import os
import shutil
import tempfile

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib

# The feature gate of the split-* contracts (stage "features"): kept equal by tests/split_flow.rs.
COSINE_MEAN_MIN = 0.99
CHANNEL_ERR_MAX = 0.25
CANDIDATES = ([], ["per_channel"], ["cle"], ["cle", "per_channel"])


def body(a):
    p = Project()
    b = splitlib.backend()
    split = splitlib.Split(p)
    example = p.example_inputs()
    calib = p.calibration_data()
    inputs, _ = p.eval_data()
    ref = splitlib.eager_features(split.backbone, inputs)
    rows = []
    scratch = tempfile.mkdtemp(prefix="aipc-restoration-")
    try:
        for chosen in CANDIDATES:
            backbone = split.backbone
            name = "+".join(chosen) or "none"
            if "cle" in chosen:
                backbone, pairs, _ = splitlib.cross_layer_equalize(backbone, example)
                if not pairs:
                    note(f"{name}: skipped (no convolution pair to equalize)")
                    continue
            fp32 = os.path.join(scratch, f"fp32{b.SUFFIX}")
            int8 = os.path.join(scratch, f"{name}{b.SUFFIX}")
            b.export(backbone, example, fp32)
            extra = {"backbone": backbone, "example": example} if b.RUNTIME == "executorch-xnnpack" else {}
            b.quantize(fp32, int8, calib, "per_channel" in chosen, **extra)
            out, _ = b.features(int8, inputs)
            m = splitlib.feature_metrics(ref, out)
            ok = m["cosine_mean"] >= COSINE_MEAN_MIN and m["channel_err_max"] <= CHANNEL_ERR_MAX and m["finite"]
            rows.append({"restoration": splitlib.restoration_name(chosen), "cosine_mean": m["cosine_mean"], "cosine_min": m["cosine_min"],
                         "channel_err_max": m["channel_err_max"], "passes": int(bool(ok))})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    note(f"feature gate: cosine_mean >= {COSINE_MEAN_MIN}, channel_err_max <= {CHANNEL_ERR_MAX}")
    note(f"{'restoration':<20} {'cosine mean':>12} {'cosine min':>11} {'chan err max':>13}  passes")
    for r in rows:
        note(f"{r['restoration']:<20} {r['cosine_mean']:>12.6f} {r['cosine_min']:>11.6f} "
             f"{r['channel_err_max']:>13.4f}  {'yes' if r['passes'] else 'no'}")
    passing = [r for r in rows if r["passes"]]
    best = min(passing, key=lambda r: (r["restoration"].count("+") + (r["restoration"] != "none"), -r["cosine_mean"]))["restoration"] if passing else None
    if best is not None:
        name = best
        emit.warn("restoration chosen", f"the least restoration that passes the feature gate is {json.dumps(name)}: record it "
                  f'with set_project_option {{"key": "restoration", "value": {json.dumps(name)}}}, then build_backbone {{}}')
    else:
        emit.warn("restoration exhausted", "no restoration of this toolbox brings the INT8 features within the gate; "
                  "a human decides (a different split point, quantization-aware training, or the backbone kept in float)")
    out = {"measured": rows, "passing": [r["restoration"] for r in passing], "best": best,
           "gate": {"cosine_mean": COSINE_MEAN_MIN, "channel_err_max": CHANNEL_ERR_MAX}}
    if best is not None:
        # The engine offers the calls a result names next (docs/toolbox.md, "next_calls"): the
        # sweep built in a scratch folder, so the choice counts only once it is recorded.
        record = "set_project_option " + json.dumps({"key": "restoration", "value": best})
        out["next_calls"] = [record + "  (records the least restoration that passes the feature gate, so "
                             "build_backbone builds it)"]
    return out


if __name__ == "__main__":
    emit.main("restoration_sweep", __file__, "features", body)
