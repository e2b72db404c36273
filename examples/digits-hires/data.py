"""Data of the digits-hires project: scikit-learn's bundled 8x8 handwritten digits (1,797 images,
10 classes; shipped inside scikit-learn, no download), upsampled 3x (nearest) to the 24x24 scans
the project's scanner delivers.

Images are scaled to [0, 1] and shaped (N, 1, 24, 24); the split is digits-cnn's (fixed seed,
360 evaluation images). aipc.toml [project] names:
- example_inputs(): one evaluation image, batch 1 (static batch 1: one scan per request);
- eval_set(): ((images,), labels) of the 360 evaluation images;
- calibration_set(): 64 training images, one input tuple per image, for INT8 calibration.
"""
from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import load_digits

SEED = 0
EVAL_SIZE = 360
CALIB_SIZE = 64
SCALE = 3


@lru_cache(maxsize=1)
def _split():
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)
    x = x.repeat(SCALE, axis=1).repeat(SCALE, axis=2).reshape(-1, 1, 8 * SCALE, 8 * SCALE)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(y))
    test, train = order[:EVAL_SIZE], order[EVAL_SIZE:]
    return (torch.from_numpy(x[train]), torch.from_numpy(y[train])), (torch.from_numpy(x[test]), torch.from_numpy(y[test]))


def train_set():
    return _split()[0]


def eval_set():
    x, y = _split()[1]
    return (x,), y


def example_inputs():
    x, _ = _split()[1]
    return (x[:1].clone(),)


def calibration_set():
    x, _ = _split()[0]
    return [(x[i:i + 1].clone(),) for i in range(CALIB_SIZE)]
