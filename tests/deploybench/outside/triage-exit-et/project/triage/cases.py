"""The cases: scikit-learn's bundled Wisconsin breast-cancer set (569 cases, 30 measurements,
no download). A fixed seed holds out 150 cases; the measurements are standardised with the
training split's mean and standard deviation (the same numbers the intake app reads from
artifacts/feature_stats.json)."""
import json
import os

import numpy as np
import torch
from sklearn.datasets import load_breast_cancer

HOLDOUT = 150
STATS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "artifacts", "feature_stats.json")
_memo = {}


def raw_split():
    """(train_x, train_y), (holdout_x, holdout_y) in the lab's raw units, float64."""
    if "raw" not in _memo:
        data = load_breast_cancer()
        order = np.random.RandomState(11).permutation(len(data.target))
        held, rest = order[:HOLDOUT], order[HOLDOUT:]
        _memo["raw"] = ((data.data[rest], data.target[rest]), (data.data[held], data.target[held]))
        _memo["names"] = list(data.feature_names)
    return _memo["raw"]


def feature_names():
    raw_split()
    return _memo["names"]


def training_stats():
    (x, _), _ = raw_split()
    return x.mean(axis=0), x.std(axis=0)


def write_stats(path=STATS):
    mean, std = training_stats()
    with open(path, "w") as f:
        json.dump({"features": feature_names(), "mean": mean.tolist(), "std": std.tolist()}, f, indent=1)


def _standardised(x):
    mean, std = training_stats()
    return torch.from_numpy(((x - mean) / std).astype(np.float32))


def training_cases():
    (x, y), _ = raw_split()
    return _standardised(x), torch.from_numpy(y.astype(np.int64))


def holdout():
    _, (x, y) = raw_split()
    return (_standardised(x),), torch.from_numpy(y.astype(np.int64))


def one_case():
    (x,), _ = holdout()
    return (x[:1].clone(),)


def calibration_cases(count=64):
    x, _ = training_cases()
    return [(x[i:i + 1].clone(),) for i in range(count)]
