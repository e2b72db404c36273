"""The station logs stored with the project (logs/*.npz: millivolts and milliamps as the
station channel records them) and the entries aipc.toml names."""
import os
from functools import lru_cache

import numpy as np
import torch

from . import RATED_AH

LOGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "logs")


@lru_cache(maxsize=None)
def read_station_file(name: str):
    with np.load(os.path.join(LOGS, name)) as z:
        return z["voltage_mv"], z["current_ma"], z["grade"]


V_NOMINAL_MV, V_SPAN_MV = 3700.0, 500.0
RATED_MA = RATED_AH * 1000.0


def to_step_log(voltage_mv: np.ndarray, current_ma: np.ndarray) -> np.ndarray:
    """(N, 96) mV and mA -> (N, 2, 96) float32, the model's input: channel 0 the voltage as
    (V - 3.7 V) / 0.5 V, channel 1 the current as a C-rate (I / rated capacity per hour)."""
    v = (voltage_mv.astype(np.float32) - V_NOMINAL_MV) / V_SPAN_MV
    c = current_ma.astype(np.float32) / RATED_MA
    return np.stack([v, c], axis=1).astype(np.float32)


def _tensors(name: str):
    v, i, g = read_station_file(name)
    return torch.from_numpy(to_step_log(v, i)), torch.from_numpy(g.astype(np.int64))


def example_step():
    x, _ = _tensors("bench_eval.npz")
    return (x[:1].clone(),)


def eval_steps():
    x, y = _tensors("bench_eval.npz")
    return (x,), y


def calibration_steps():
    x, _ = _tensors("bench_calib.npz")
    return [(x[k:k + 1].clone(),) for k in range(len(x))]
