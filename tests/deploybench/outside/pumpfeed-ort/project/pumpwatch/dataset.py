"""The lab's data pipeline: record files -> model-ready windows.

A window is the (4, 128) float32 array the network takes: each channel converted from ADC counts
to its physical unit (recordfile.SENSOR_HEAD), then standardised with the training set's
per-channel mean and standard deviation (channel_stats.json, written by train.py), channels first.

Entries named by aipc.toml:
- example_window(): the first bench window, batch 1;
- eval_windows(): ((windows (N, 4, 128),), labels) of the bench session data/bench_session.pwr;
- calibration_windows(): 64 windows of the calibration session, one input tuple each.
"""
import csv
import json
import os
from functools import lru_cache

import numpy as np
import torch

from pumpwatch.recordfile import SENSOR_HEAD, read_records

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data")
STATS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "channel_stats.json")
BENCH = os.path.join(DATA, "bench_session.pwr")
BENCH_LABELS = os.path.join(DATA, "bench_session_labels.csv")
CALIB = os.path.join(DATA, "calib_session.pwr")


def to_physical(counts):
    counts = np.asarray(counts, dtype=np.float32)
    off = np.array([s.offset_counts for s in SENSOR_HEAD], dtype=np.float32)
    lsb = np.array([s.units_per_count for s in SENSOR_HEAD], dtype=np.float32)
    return (counts - off) * lsb


class Standardiser:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)

    @classmethod
    def fit(cls, phys_windows):
        flat = np.concatenate(phys_windows)
        return cls(flat.mean(axis=0), flat.std(axis=0))

    @classmethod
    def load(cls, path=STATS):
        with open(path) as f:
            d = json.load(f)
        return cls(d["mean"], d["std"])

    def save(self, path=STATS):
        with open(path, "w") as f:
            json.dump({"channels": [s.name for s in SENSOR_HEAD], "mean": self.mean.tolist(), "std": self.std.tolist()}, f, indent=1)

    def __call__(self, phys):
        return (phys - self.mean) / self.std


def model_ready(counts, standardiser):
    """int16 (n, 4) counts -> float32 (4, n), standardised."""
    return np.ascontiguousarray(standardiser(to_physical(counts)).T, dtype=np.float32)


def read_labels(path=BENCH_LABELS):
    with open(path) as f:
        return np.array([int(row["condition_id"]) for row in csv.DictReader(f)], dtype=np.int64)


def windows_from(path, standardiser=None):
    std = standardiser or Standardiser.load()
    return torch.from_numpy(np.stack([model_ready(r.counts, std) for r in read_records(path)]))


@lru_cache(maxsize=1)
def _bench():
    return windows_from(BENCH), torch.from_numpy(read_labels())


def eval_windows():
    x, y = _bench()
    return (x,), y


def example_window():
    x, _ = _bench()
    return (x[:1].clone(),)


def calibration_windows():
    x = windows_from(CALIB)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
