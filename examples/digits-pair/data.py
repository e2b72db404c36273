"""Data of the digits-pair project: pairs of scikit-learn's bundled 8x8 handwritten digits
(1,797 images, 10 classes; shipped inside scikit-learn, no download), labelled 1 when both
images show the same digit, else 0; half the pairs of every set are "same".

Images are scaled to [0, 1] and shaped (N, 1, 8, 8) with reshape (see digits-cnn's README for
why not `[:, None]`); the image split is digits-cnn's (fixed seed, 360 evaluation images), and
pairs never mix the two splits. aipc.toml [project] names:
- example_inputs(): one evaluation pair, batch 1: (image_a, image_b);
- eval_set(): ((image_a, image_b), same) of 360 evaluation pairs (each evaluation image is image_a once);
- calibration_set(): 64 training pairs, one (image_a, image_b) tuple each, for INT8 calibration.
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
    x = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(y))
    test, train = order[:EVAL_SIZE], order[EVAL_SIZE:]
    return (x[train], y[train]), (x[test], y[test])


def pairs(x, y, count, seed):
    """`count` pairs (a, b, same) from images x with labels y: pair i starts at image i % len(x);
    its partner has the same label for even i, another label for odd i."""
    rng = np.random.default_rng(seed)
    by_label = {c: np.flatnonzero(y == c) for c in range(10)}
    a_idx, b_idx = [], []
    for i in range(count):
        a = i % len(y)
        if i % 2 == 0:
            b = rng.choice(by_label[y[a]])
        else:
            b = rng.choice(np.flatnonzero(y != y[a]))
        a_idx.append(a)
        b_idx.append(b)
    a_idx, b_idx = np.array(a_idx), np.array(b_idx)
    same = (y[a_idx] == y[b_idx]).astype(np.int64)
    return torch.from_numpy(x[a_idx]), torch.from_numpy(x[b_idx]), torch.from_numpy(same)


def train_pairs(epoch):
    x, y = _split()[0]
    order = np.random.default_rng(100 + epoch).permutation(len(y))
    return pairs(x[order], y[order], 2 * len(y), seed=200 + epoch)


@lru_cache(maxsize=1)
def _eval():
    x, y = _split()[1]
    return pairs(x, y, EVAL_SIZE, seed=1)


def eval_set():
    a, b, same = _eval()
    return (a, b), same


def example_inputs():
    a, b, _ = _eval()
    return (a[:1].clone(), b[:1].clone())


def calibration_set():
    x, y = _split()[0]
    a, b, _ = pairs(x, y, CALIB_SIZE, seed=2)
    return [(a[i:i + 1].clone(), b[i:i + 1].clone()) for i in range(CALIB_SIZE)]
