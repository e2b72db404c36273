"""Train / evaluation splits of simulated shipments and their model-ready features.

aipc.toml names `one_shipment` (example input), `eval_split` (eval data) and `calibration_rows`.
"""
from functools import lru_cache

import numpy as np
import torch

from reefer.featurize import feature_matrix
from reefer.simulate import simulate


@lru_cache(maxsize=None)
def train_shipments():
    return tuple(simulate(1600, seed=101, prefix="TR"))


@lru_cache(maxsize=None)
def eval_shipments():
    """The held-out shipments, raw (what the receiving desk's gateway delivered)."""
    return tuple(simulate(400, seed=202, prefix="EV"))


def _tensors(ships):
    x = torch.from_numpy(feature_matrix(ships))
    y = torch.tensor([s.outcome for s in ships], dtype=torch.long)
    return x, y


def train_split():
    return _tensors(train_shipments())


def eval_split():
    x, y = _tensors(eval_shipments())
    return (x,), y


def one_shipment():
    return (eval_split()[0][0][:1].clone(),)


def calibration_rows(count=64):
    x, _ = train_split()
    return [(x[i:i + 8].clone(),) for i in range(0, count, 8)]
