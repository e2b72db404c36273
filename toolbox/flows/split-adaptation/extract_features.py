"""split adaptation, tool `extract_features`: run the INT8 backbone artifact (the one the runtime
deploys) on adapt_data's train and test inputs and cache the features with their labels in
build/features.npz, keyed by the artifact's sha256 (train_head and evaluate_adaptation refuse a
cache made by another backbone).

Metrics: extracted (1/0), train_samples, test_samples, feature_dim, seconds, ms_per_sample, classes.
"""
import numpy as np

from aipc_toolbox import emit
from aipc_toolbox.emit import note
from aipc_toolbox.project import Project

import splitlib


def body(a):
    p = Project()
    b = splitlib.backend()
    side = splitlib.read_sidecar()
    tx, ty, vx, vy, classes = splitlib.adapt_data(p)
    art = side["int8"]["artifact"]
    train, t_train = b.features(art, tx, threads=p["threads"])
    test, t_test = b.features(art, vx, threads=p["threads"])
    if not (np.isfinite(train).all() and np.isfinite(test).all()):
        raise emit.ToolError(f"{art} gave NaN or Inf features on adapt_data: check the inputs adapt_data returns")
    n = len(ty) + len(vy)
    np.savez(splitlib.FEATURES, train=train, train_labels=ty.numpy(), test=test, test_labels=vy.numpy(),
             backbone_sha256=np.array(side["int8"]["sha256"]), classes=np.array(classes))
    note(f"{art}: features of {len(ty)} train and {len(vy)} test inputs ({train.shape[1]} channels, {classes} classes) "
         f"in {t_train + t_test:.3f} s ({(t_train + t_test) / n * 1000:.3f} ms per sample) -> {splitlib.FEATURES}")
    return {"extracted": 1, "artifact": art, "train_samples": int(len(ty)), "test_samples": int(len(vy)),
            "feature_dim": int(train.shape[1]), "classes": classes, "seconds": round(t_train + t_test, 4),
            "ms_per_sample": round((t_train + t_test) / n * 1000, 4)}


if __name__ == "__main__":
    emit.main("extract_features", __file__, "extract", body)
