"""The stored captures (int16 ADC counts, as the sensor delivers them) and the entries
aipc.toml names: example window, labelled evaluation windows, calibration windows."""
import os
from functools import lru_cache

import numpy as np
import torch

from .sensor import counts_to_g

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "captures")


@lru_cache(maxsize=None)
def load_capture(name: str):
    with np.load(os.path.join(ROOT, name)) as z:
        return z["counts"], z["labels"]


def windows_g(name: str):
    counts, labels = load_capture(name)
    return torch.from_numpy(counts_to_g(counts)), torch.from_numpy(labels)


def example_window():
    x, _ = windows_g("rig_eval.npz")
    return (x[:1].clone(),)


def eval_windows():
    x, y = windows_g("rig_eval.npz")
    return (x,), y


def calibration_windows():
    x, _ = windows_g("rig_calib.npz")
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
