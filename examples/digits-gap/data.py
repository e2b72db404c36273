"""Data of the digits-gap project (the same as digits-cnn): scikit-learn's bundled 8x8 handwritten digits (1,797 images,
10 classes; shipped inside scikit-learn, no download).

Images are scaled to [0, 1] and shaped (N, 1, 8, 8); a fixed seed splits 360 images off for
evaluation. The functions below are what aipc.toml [project] names:
- example_inputs(): one evaluation image, batch 1 (the artifact is exported with a static batch of 1,
  the usual edge setting; see README for why not a dynamic batch);
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


@lru_cache(maxsize=1)
def _split():
    digits = load_digits()
    # reshape, not images[:, None]: numpy gives the inserted axis stride 1, which torch reads as a
    # channels-last dim order; torch.export then records an NHWC input and the XNNPACK delegate
    # fails at run time ("Propagating input shapes failed").
    x = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
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
