"""Digit-wheel crops as the network sees them: scikit-learn's bundled 8x8 digits (1,797 crops,
0..16 grey levels, no download) scaled to [0, 1], shaped (N, 1, 8, 8) float32. A fixed seed
holds out 360 crops for evaluation."""
import numpy as np
import torch
from sklearn.datasets import load_digits

HELD_OUT = 360
LEVELS = 16.0
_cache = {}


def _split():
    if not _cache:
        d = load_digits()
        order = np.random.RandomState(2024).permutation(len(d.target))
        _cache["train"] = order[HELD_OUT:]
        _cache["test"] = order[:HELD_OUT]
        _cache["images"] = d.images.astype(np.float32)
        _cache["labels"] = d.target.astype(np.int64)
    return _cache


def raw_crops(part: str):
    """(grey levels (N, 8, 8) float32 in 0..16, labels (N,)) of the 'train' or 'test' part."""
    c = _split()
    idx = c[part]
    return c["images"][idx], c["labels"][idx]


def _tensor(images):
    return torch.from_numpy((images / LEVELS).reshape(-1, 1, 8, 8).astype(np.float32))


def train_crops():
    x, y = raw_crops("train")
    return _tensor(x), torch.from_numpy(y)


def test_crops():
    x, y = raw_crops("test")
    return (_tensor(x),), torch.from_numpy(y)


def probe():
    (x,), _ = test_crops()
    return (x[:1].clone(),)


def calibration_crops(count=64, batch=8):
    x, _ = train_crops()
    return [(x[i:i + batch].clone(),) for i in range(0, count, batch)]
