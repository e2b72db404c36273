"""Model-ready tensors from raw captures (the training and evaluation path).

The network takes a clip as (N, FRAMES, 8, 8) float32: frames stacked as channels, zones as the
image, each zone's range in [0, 1] (0 mm = invalid zone -> far; clipped at FAR_MM).
"""
import os
from functools import lru_cache

import numpy as np
import torch

from .sim import captures

FAR_MM = 4000.0
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def normalise_mm(raw):
    """uint16 mm (any shape) -> float32 in [0, 1], invalid zones read as far."""
    raw = np.asarray(raw)
    far = np.where(raw == 0, FAR_MM, np.minimum(raw, FAR_MM))
    return (far / FAR_MM).astype(np.float32)


def clip_batch(raw_clips):
    """(N, FRAMES, 8, 8) uint16 -> (N, FRAMES, 8, 8) float32 tensor."""
    return torch.from_numpy(np.ascontiguousarray(normalise_mm(raw_clips)))


@lru_cache(maxsize=4)
def load_raw(split):
    z = np.load(os.path.join(DATA, f"captures_{split}.npz"))
    return z["range_mm"], z["gesture"].astype(np.int64)


def training_clips():
    raw, y = captures(3000, seed=101)          # the simulator is the training set (not committed)
    return clip_batch(raw), torch.from_numpy(y)


def eval_clips():
    raw, y = load_raw("eval")
    return (clip_batch(raw),), torch.from_numpy(y)


def example_clip():
    (x,), _ = eval_clips()
    return (x[:1].clone(),)


def calibration_clips():
    raw, _ = load_raw("calib")
    x = clip_batch(raw)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
