"""The crops as the network was trained on them: float32, (N, 3, H, W), standardised per channel.

aipc.toml names `probe` (example input), `holdout` (eval data) and `calibration_batch`.
"""
import numpy as np
import torch

from slipcam.config import FRAME
from slipcam.render import holdout_crops, training_crops

_MEAN = np.asarray(FRAME.channel_mean, np.float32)
_STD = np.asarray(FRAME.channel_std, np.float32)


def standardise(crops):
    """uint8 (N, H, W, 3) -> float32 (N, 3, H, W), the training-time preprocessing."""
    x = (crops.astype(np.float32) / 255.0 - _MEAN) / _STD
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def training_set():
    crops, labels = training_crops()
    return standardise(crops), torch.from_numpy(labels)


def holdout():
    crops, labels = holdout_crops()
    return (standardise(crops),), torch.from_numpy(labels)


def probe():
    crops, _ = holdout_crops()
    return (standardise(crops[:1]),)


def calibration_batch(count=32):
    x, _ = training_set()
    return [(x[i:i + 1].clone(),) for i in range(count)]
