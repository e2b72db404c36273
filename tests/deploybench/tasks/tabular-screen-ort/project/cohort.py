"""Records of the tabular-screen project: scikit-learn's bundled Wisconsin breast cancer table
(569 records, 30 numeric features, 2 classes; shipped inside scikit-learn, no download).

The hospital's feature service delivers z-scores: every feature standardised with the mean and
standard deviation of the training records (computed here, from the fixed-seed split). A fixed
seed holds 169 records out for evaluation.

aipc.toml [project] names:
- sample_batch(): one evaluation record, batch 1: features (1, 30) float32;
- holdout(): ((features,), labels) of the 169 held-out records;
- calibration_records(): 64 training records, one input tuple each.
"""
from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import load_breast_cancer

SEED = 7
HOLDOUT = 169
CALIB = 64


@lru_cache(maxsize=1)
def _tables():
    table = load_breast_cancer()
    x = table.data.astype(np.float64)
    y = table.target.astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(y))
    test, train = order[:HOLDOUT], order[HOLDOUT:]
    mu, sd = x[train].mean(0), x[train].std(0)
    z = ((x - mu) / sd).astype(np.float32)
    as_t = torch.from_numpy
    return (as_t(z[train]), as_t(y[train])), (as_t(z[test]), as_t(y[test]))


def training_records():
    return _tables()[0]


def holdout():
    x, y = _tables()[1]
    return (x,), y


def sample_batch():
    x, _ = _tables()[1]
    return (x[:1].clone(),)


def calibration_records():
    x, _ = _tables()[0]
    return [(x[i:i + 1].clone(),) for i in range(CALIB)]
