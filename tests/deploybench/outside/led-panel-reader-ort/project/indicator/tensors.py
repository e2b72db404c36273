"""Training/evaluation side: captured BGR crops -> the network's input tensor.

This is the preprocessing the network was trained with: BGR -> RGB, scale to [0, 1], normalise
with the frozen training statistics, NCHW float32.
"""
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from indicator.labels import CHANNEL_MEAN_RGB, CHANNEL_STD_RGB

CAPTURES = Path(__file__).resolve().parent.parent / "captures"


def crops_to_tensor(bgr_crops: np.ndarray) -> torch.Tensor:
    rgb = bgr_crops[..., ::-1].astype(np.float32) / 255.0
    rgb = (rgb - np.array(CHANNEL_MEAN_RGB, np.float32)) / np.array(CHANNEL_STD_RGB, np.float32)
    return torch.from_numpy(np.ascontiguousarray(rgb.transpose(0, 3, 1, 2)))


@lru_cache(maxsize=1)
def _acceptance_set():
    with np.load(CAPTURES / "acceptance_line3.npz") as z:
        return z["frames"], z["state"].astype(np.int64)


def acceptance_batch():
    """((crops,), states): the acceptance captures of line 3, model-ready."""
    frames, states = _acceptance_set()
    return (crops_to_tensor(frames),), torch.from_numpy(states)


def one_crop():
    (x,), _ = acceptance_batch()
    return (x[:1].clone(),)


def calibration_crops():
    (x,), _ = acceptance_batch()
    return [(x[i:i + 1].clone(),) for i in range(0, len(x), 3)]
