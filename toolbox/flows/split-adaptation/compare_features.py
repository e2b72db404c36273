"""split adaptation, tool `compare_features`: the feature gate. The backbone artifacts built by
build_backbone run on the held-out inputs of aipc.toml `eval_data`; their features are compared
with the eager FP32 backbone's (the original one, before any restoration):

- fp32_cosine_min: the FP32 artifact against eager (export fidelity);
- cosine_mean, cosine_min: the INT8 artifact, per sample;
- channel_err_max, channel_err_median: per feature channel, the RMS error of the INT8 features in
  units of that channel's spread over the samples (0: exact; 1: the error is as large as the
  signal), and which channel is worst.

It prints the restoration the INT8 backbone was built with, and `restoration_matches` (1 when
that is what aipc.toml `restoration` asks for, so that every later build_backbone builds the same
backbone; else an `aipc-warning: restoration not recorded` line names the call that records it).
When the INT8 features drift, the restoration techniques are what restores them:
restoration_sweep measures each.
"""
import json

import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib


def body(a):
    p = Project()
    b = splitlib.backend()
    side = splitlib.read_sidecar()
    split = splitlib.Split(p)
    inputs, _ = p.eval_data()
    ref = splitlib.eager_features(split.backbone, inputs)
    fp32, _ = b.features(side["fp32"]["artifact"], inputs)
    int8, _ = b.features(side["int8"]["artifact"], inputs)
    f = splitlib.feature_metrics(ref, fp32)
    m = splitlib.feature_metrics(ref, int8)
    restoration = side.get("restoration") or "none"
    wanted = splitlib.restoration_name(splitlib.restorations(p, {}))
    matches = restoration == wanted
    if not matches:
        emit.warn("restoration not recorded", f"the INT8 backbone was built with restoration {json.dumps(restoration)}, "
                  f"aipc.toml restoration asks for {json.dumps(wanted)}: record the build's with set_project_option "
                  f'{{"key": "restoration", "value": {json.dumps(restoration)}}} (or build_backbone {{}} builds what '
                  "aipc.toml asks for)")
    note(f"{m['samples']} held-out inputs (eval_data), {m['features']} feature channels; INT8 backbone built with "
         f"restoration: {restoration}")
    note(f"FP32 artifact vs eager: cosine min {f['cosine_min']:.6f}, worst channel error {f['channel_err_max']:.4f}")
    note(f"INT8 artifact vs eager: cosine mean {m['cosine_mean']:.6f}, min {m['cosine_min']:.6f}; channel error "
         f"max {m['channel_err_max']:.4f} (channel {m['worst_channel']}), median {m['channel_err_median']:.4f}")
    return {"artifact": side["int8"]["artifact"], "restoration": restoration,
            "restoration_matches": int(matches), "fp32_cosine_min": f["cosine_min"],
            "cosine_mean": m["cosine_mean"], "cosine_min": m["cosine_min"], "channel_err_max": m["channel_err_max"],
            "channel_err_median": m["channel_err_median"], "worst_channel": m["worst_channel"],
            "finite": int(m["finite"] and f["finite"]), "samples": m["samples"], "features": m["features"],
            "feature_scale": round(float(np.abs(ref).mean()), 6)}


if __name__ == "__main__":
    emit.main("compare_features", __file__, "features", body)
