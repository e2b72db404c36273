"""The stored vibration windows, as aipc.toml [project] names them.

example_window()      one evaluation window, batch 1 (the monitor classifies one window at a time)
eval_split()          ((accel,), condition) of the 240 evaluation windows
calibration_windows() 32 training windows, one input tuple each, for INT8 calibration
"""
import os
from functools import lru_cache

import numpy as np
import torch

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
CALIBRATION_WINDOWS = 32


@lru_cache(maxsize=2)
def _load(name):
    with np.load(os.path.join(DATA, f"vibration_{name}.npz")) as f:
        accel = torch.from_numpy(np.ascontiguousarray(f["accel"].astype(np.float32)))
        condition = torch.from_numpy(f["condition"].astype(np.int64))
    return accel, condition


def train_split():
    return _load("train")


def eval_split():
    accel, condition = _load("eval")
    return (accel,), condition


def example_window():
    accel, _ = _load("eval")
    return (accel[:1].clone(),)


def calibration_windows():
    accel, _ = _load("train")
    return [(accel[i:i + 1].clone(),) for i in range(CALIBRATION_WINDOWS)]
