"""Model-ready data: windows in g, float32 (N, 3, 64).

The evaluation path reads each session of the archive, converts it to g (bandlab.units.to_g),
and frames it. aipc.toml names `first_window` (example input) and `holdout_windows` (eval data).
"""
from functools import lru_cache

import numpy as np
import torch

from bandlab import recordings
from bandlab.synth import simulate_recording
from bandlab.units import to_g
from bandlab.windows import frame

TRAIN_SEEDS = range(1000, 1012)


def session_windows(entry):
    rec = recordings.load(entry)
    return frame(to_g(rec)), rec.activity


@lru_cache(maxsize=None)
def _holdout():
    parts = [session_windows(e) for e in recordings.index("eval")]
    x = np.concatenate([p[0] for p in parts]); y = np.concatenate([p[1] for p in parts])
    return torch.from_numpy(x), torch.from_numpy(y)


def holdout_windows():
    x, y = _holdout()
    return (x,), y


def first_window():
    return (_holdout()[0][:1].clone(),)


def training_windows():
    """Fresh simulated sessions (in g) for training; not part of the archive."""
    parts = [simulate_recording(s, windows=100) for s in TRAIN_SEEDS]
    x = np.concatenate([frame(a) for a, _ in parts]); y = np.concatenate([l for _, l in parts])
    return torch.from_numpy(x), torch.from_numpy(y)
