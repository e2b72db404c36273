"""Scans as the model takes them: (N, 1, 128) float32, range / MAX_RANGE_M in [0, 1].

The entries aipc.toml names live here (example_inputs, eval_scans, calibration_scans).
"""
import os
from functools import lru_cache

import numpy as np
import torch

from .worlds import MAX_RANGE_M

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
CALIBRATION_SCANS = 96


def ring_tensor(range_mm):
    """uint16 millimetres (N, 128) -> float32 (N, 1, 128) in [0, 1]."""
    x = np.asarray(range_mm, np.float32) / (1000.0 * MAX_RANGE_M)
    return torch.from_numpy(np.ascontiguousarray(x.reshape(len(x), 1, -1)))


@lru_cache(maxsize=2)
def _split(name):
    z = np.load(os.path.join(DATA, f"scans_{name}.npz"))
    return ring_tensor(z["range_mm"]), torch.from_numpy(z["place"].astype(np.int64))


def train_scans():
    return _split("train")


def eval_scans():
    x, y = _split("eval")
    return (x,), y


def example_inputs():
    x, _ = _split("eval")
    return (x[:1].clone(),)


def calibration_scans():
    x, _ = _split("train")
    idx = np.random.default_rng(5).choice(len(x), CALIBRATION_SCANS, replace=False)
    return [(x[i:i + 1].clone(),) for i in idx]
