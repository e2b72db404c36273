"""IMU windows as the classifier takes them: (N, 3, 64) float32, dynamic acceleration in g
(counts / 4096, each axis minus its window mean: gravity and the rider's tilt removed).

aipc.toml names one_window, street_test_set and calibration_windows from here.
"""
import os
from functools import lru_cache

import numpy as np
import torch

from .simulate import COUNTS_PER_G

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
CALIB_WINDOWS = 128


def to_g(counts):
    """int16 counts (N, 3, 64) -> float32 tensor of dynamic acceleration in g."""
    g = np.asarray(counts, np.float32) / COUNTS_PER_G
    g = g - g.mean(axis=-1, keepdims=True)
    return torch.from_numpy(np.ascontiguousarray(g, dtype=np.float32))


@lru_cache(maxsize=4)
def _load(name):
    return dict(np.load(os.path.join(DATA, f"{name}.npz")))


def ride_log():
    z = _load("ride_log")
    return to_g(z["counts"]), torch.from_numpy(z["grade"].astype(np.int64))


def street_test_set():
    z = _load("street_test")
    return (to_g(z["counts"]),), torch.from_numpy(z["grade"].astype(np.int64))


def one_window():
    (x,), _ = street_test_set()
    return (x[:1].clone(),)


def calibration_windows():
    """INT8 calibration: a slice of the labelled ride log (the model never trained on the street test)."""
    x, _ = ride_log()
    return [(x[i:i + 1].clone(),) for i in range(CALIB_WINDOWS)]
