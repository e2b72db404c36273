"""Data of the rank-gauss project: a fixed-seed synthetic table from scikit-learn's
`make_classification` (3,000 rows, 16 features, 8 informative, 4 classes; no download), with
heavy-tailed columns (every feature goes through exp or a cube, as raw business metrics do).

The feature store serves every column as its percentile rank in the training rows, a value in
(0, 1): rank / (n + 1), so never exactly 0 or 1. The model turns ranks back into normal scores.

aipc.toml [project] names:
- probe(): one evaluation row, batch 1: ranks (1, 16) float32;
- scored_rows(): ((ranks,), labels) of 600 held-out rows;
- calibration_rows(): 64 training rows, one input tuple each.
"""
from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import make_classification

HELD_OUT = 600


@lru_cache(maxsize=1)
def _split():
    x, y = make_classification(n_samples=3000, n_features=16, n_informative=8, n_redundant=4, n_classes=4,
                               n_clusters_per_class=1, class_sep=1.5, random_state=3)
    x[:, ::2] = np.exp(x[:, ::2])
    x[:, 1::2] = x[:, 1::2] ** 3
    order = np.random.default_rng(3).permutation(len(y))
    test, train = order[:HELD_OUT], order[HELD_OUT:]
    ref = np.sort(x[train], axis=0)
    ranks = np.stack([np.searchsorted(ref[:, j], x[:, j], side="right") for j in range(x.shape[1])], axis=1)
    u = ((ranks + 0.5) / (len(train) + 1)).astype(np.float32)
    t = torch.from_numpy
    return (t(u[train]), t(y[train].astype(np.int64))), (t(u[test]), t(y[test].astype(np.int64)))


def training_rows():
    return _split()[0]


def scored_rows():
    x, y = _split()[1]
    return (x,), y


def probe():
    x, _ = _split()[1]
    return (x[:1].clone(),)


def calibration_rows():
    x, _ = _split()[0]
    return [(x[i:i + 1].clone(),) for i in range(64)]
