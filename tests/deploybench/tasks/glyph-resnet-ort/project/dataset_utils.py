"""scikit-learn's bundled 8x8 digits (1,797 scans, 10 classes; no download), as GlyphNet sees them:
float32 in [0, 1], shaped (N, 1, 8, 8). A fixed seed holds out 400 scans for evaluation."""
import numpy as np
import torch
from sklearn.datasets import load_digits

HOLDOUT = 400
_cache = {}


def _tensors():
    if "split" not in _cache:
        d = load_digits()
        x = (d.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
        y = d.target.astype(np.int64)
        perm = np.random.RandomState(7).permutation(len(y))
        held, rest = perm[:HOLDOUT], perm[HOLDOUT:]
        _cache["split"] = ((torch.from_numpy(x[rest]), torch.from_numpy(y[rest])),
                           (torch.from_numpy(x[held]), torch.from_numpy(y[held])))
    return _cache["split"]


def training_pairs():
    return _tensors()[0]


def holdout():
    x, y = _tensors()[1]
    return (x,), y


def probe_batch():
    return (_tensors()[1][0][:1].clone(),)


def calibration_scans(count=48):
    x = _tensors()[0][0]
    return [(x[i:i + 1].clone(),) for i in range(count)]
