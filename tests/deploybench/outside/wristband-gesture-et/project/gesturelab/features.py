"""The feature pipeline the network was trained with: counts -> g / deg/s -> per-channel
standardisation with the training set's statistics (imu_norm.json) -> (batch, 6, WINDOW)."""
import json
import os

import numpy as np

from .imu import CHANNELS, counts_to_si

NORM_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imu_norm.json")


def fit_norm(counts):
    si = counts_to_si(counts).reshape(-1, len(CHANNELS))
    stats = {"units": "g, deg/s", "channels": list(CHANNELS),
             "mean": [round(float(v), 6) for v in si.mean(0)],
             "std": [round(float(v), 6) for v in si.std(0)]}
    with open(NORM_FILE, "w") as f:
        json.dump(stats, f, indent=2)
    return stats


def load_norm():
    with open(NORM_FILE) as f:
        stats = json.load(f)
    return np.array(stats["mean"], dtype=np.float32), np.array(stats["std"], dtype=np.float32)


def to_model_input(counts):
    """(n, WINDOW, 6) int16 counts -> (n, 6, WINDOW) float32, what the network was trained on."""
    mean, std = load_norm()
    z = (counts_to_si(counts) - mean) / std
    return np.ascontiguousarray(z.transpose(0, 2, 1), dtype=np.float32)
