"""Data of the adapt-digits projects (the same file in adapt-digits-cnn and adapt-digits-dwsep): scikit-learn's bundled 8x8 handwritten digits (1,797 images;
shipped inside scikit-learn, no download), split by class.

- The backbone was trained (train.py) on the *base* classes 0-4 only.
- On-device adaptation learns the *novel* classes 5-9, which the backbone never saw: a fixed seed
  splits their images into an adaptation (training) set and a held-out test set.

Images are scaled to [0, 1] and shaped (N, 1, 8, 8). What aipc.toml [project] names:
- example_inputs(): one novel-class image, batch 1;
- eval_data(): ((images,), labels) of held-out novel-class images, labels 0-4 (= digit - 5): the
  inputs the feature gate compares the INT8 and FP32 backbones on;
- calibration_set(): 64 base-class training images, one input tuple each (the backbone's own data);
- adapt_data(): (train images, train labels, test images, test labels) of the novel classes.
"""
from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import load_digits

SEED = 0
BASE = (0, 1, 2, 3, 4)
CALIB_SIZE = 64
TEST_FRACTION = 0.4


@lru_cache(maxsize=1)
def _digits():
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    return x, digits.target.astype(np.int64)


def _classes(base):
    x, y = _digits()
    keep = np.isin(y, BASE) if base else ~np.isin(y, BASE)
    x, y = x[keep], y[keep]
    y = y if base else y - 5
    order = np.random.default_rng(SEED).permutation(len(y))
    n_test = int(len(y) * TEST_FRACTION)
    test, train = order[:n_test], order[n_test:]
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))  # noqa: E731
    return t(x[train]), t(y[train]), t(x[test]), t(y[test])


def base_train_set():
    """(images, labels) of the base classes, for train.py."""
    x, y, _, _ = _classes(base=True)
    return x, y


def base_test_set():
    _, _, x, y = _classes(base=True)
    return x, y


def example_inputs():
    _, _, x, _ = _classes(base=False)
    return (x[:1].clone(),)


def eval_data():
    _, _, x, y = _classes(base=False)
    return (x,), y


def calibration_set():
    x, _ = base_train_set()
    return [(x[i:i + 1].clone(),) for i in range(CALIB_SIZE)]


def adapt_data():
    return _classes(base=False)
