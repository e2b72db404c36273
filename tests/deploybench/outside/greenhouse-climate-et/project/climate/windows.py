"""Training-side data: the stored training windows, the annotated field log, and the scaler
the network was trained with.

The network reads standardised windows: every channel minus its training mean, over its
training std (ClimateScaler, saved by train.py to artifacts/scaler.json). aipc.toml names:
- eval_windows():        ((x,), states) of the 250 annotated field-log windows, standardised
- example_window():      the first of them, batch 1
- calibration_windows(): 40 standardised training windows, one input tuple each
"""
import csv
import json
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from climate.channels import CHANNELS, STATES, STEPS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCALER_PATH = os.path.join(ROOT, "artifacts", "scaler.json")
FIELD_LOG = os.path.join(ROOT, "logs", "controller_eval.csv")
FIELD_LABELS = os.path.join(ROOT, "logs", "controller_eval_labels.csv")


@dataclass
class ClimateScaler:
    mean: np.ndarray  # (4,), engineering units
    std: np.ndarray

    @classmethod
    def fit(cls, windows):
        return cls(windows.mean(axis=(0, 2)), windows.std(axis=(0, 2)))

    @classmethod
    def load(cls, path=SCALER_PATH):
        with open(path) as f:
            d = json.load(f)
        return cls(np.array([d[c]["mean"] for c in CHANNELS], np.float32), np.array([d[c]["std"] for c in CHANNELS], np.float32))

    def save(self, path=SCALER_PATH):
        with open(path, "w") as f:
            json.dump({c: {"mean": float(m), "std": float(s)} for c, m, s in zip(CHANNELS, self.mean, self.std)}, f, indent=2)

    def transform(self, windows):
        return np.ascontiguousarray((windows - self.mean[:, None]) / self.std[:, None], dtype=np.float32)


def raw_training_windows():
    with np.load(os.path.join(ROOT, "data", "train_windows.npz")) as f:
        return f["windows"].astype(np.float32), f["states"].astype(np.int64)


def read_field_log(path=FIELD_LOG, labels=FIELD_LABELS):
    """The annotated controller log as (N, 4, STEPS) engineering units and (N,) state ids."""
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.setdefault(int(r["window"]), []).append([float(r[c]) for c in CHANNELS])
    x = np.ascontiguousarray(np.stack([np.asarray(rows[k], np.float32).T for k in sorted(rows)]))
    assert x.shape[1:] == (len(CHANNELS), STEPS)
    with open(labels, newline="") as f:
        y = {int(r["window"]): STATES.index(r["state"]) for r in csv.DictReader(f)}
    return x, np.asarray([y[k] for k in sorted(rows)], np.int64)


@lru_cache(maxsize=1)
def _eval():
    x, y = read_field_log()
    return torch.from_numpy(ClimateScaler.load().transform(x)), torch.from_numpy(y)


def training_set():
    x, y = raw_training_windows()
    return torch.from_numpy(ClimateScaler.load().transform(x)), torch.from_numpy(y)


def eval_windows():
    x, y = _eval()
    return (x,), y


def example_window():
    x, _ = _eval()
    return (x[:1].clone(),)


def calibration_windows(n=40):
    x, _ = training_set()
    return [(x[i:i + 1].clone(),) for i in range(n)]
