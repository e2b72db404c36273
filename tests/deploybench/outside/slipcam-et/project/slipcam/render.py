"""Synthetic dock-camera crops of handwritten bay numbers.

The strokes are scikit-learn's bundled 8x8 digits (no download), upsampled to the crop size and
printed onto slips: paper colour, ink colour, exposure and sensor noise vary from crop to crop.
Everything comes from fixed seeds, so every call returns the same crops.
"""
from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits

from slipcam.config import FRAME

HOLDOUT = 360


def _upsample(images, size):
    t = torch.from_numpy(images.astype(np.float32) / 16.0)[:, None]
    return F.interpolate(t, size=size, mode="bilinear", align_corners=False)[:, 0].numpy()


def _print_on_slips(strokes, seed):
    rng = np.random.default_rng(seed)
    n = len(strokes)
    paper = rng.uniform(175, 250, (n, 1, 1, 3))
    ink = rng.uniform(5, 90, (n, 1, 1, 3))
    exposure = rng.uniform(0.8, 1.08, (n, 1, 1, 1))
    alpha = np.clip(strokes, 0.0, 1.0)[..., None]
    crops = (paper * (1.0 - alpha) + ink * alpha) * exposure
    crops += rng.normal(0.0, 6.0, crops.shape)
    return np.clip(np.rint(crops), 0, 255).astype(np.uint8)


@lru_cache(maxsize=None)
def _archive():
    digits = load_digits()
    strokes = _upsample(digits.images, (FRAME.height, FRAME.width))
    crops = _print_on_slips(strokes, seed=5)
    labels = digits.target.astype(np.int64)
    order = np.random.RandomState(19).permutation(len(labels))
    held, rest = order[:HOLDOUT], order[HOLDOUT:]
    return (crops[rest], labels[rest]), (crops[held], labels[held])


def training_crops():
    """(N, H, W, 3) uint8 crops and their labels, the training split."""
    return _archive()[0]


def holdout_crops():
    """(N, H, W, 3) uint8 crops and their labels, the held-out split."""
    return _archive()[1]
