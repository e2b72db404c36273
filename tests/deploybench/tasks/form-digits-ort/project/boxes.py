"""Data of the form-digits project: scikit-learn's bundled 8x8 handwritten digits (1,797 images,
no download), each box flattened to 64 pixel values scaled to [0, 1]. A fixed seed holds 360
boxes out for evaluation.

aipc.toml [project] names:
- example_form(): the first 4 evaluation boxes, boxes (4, 64) float32 (a small form);
- eval_boxes(): ((boxes,), labels) of the 360 held-out boxes;
- calibration_boxes(): 16 training forms of 4 boxes, one input tuple each.
The scanner (scanner.py, `run_inputs`) sends whole forms: 1 to 12 boxes at a time.
"""
from functools import lru_cache

import numpy as np
import torch
from sklearn.datasets import load_digits

HELD_OUT = 360


@lru_cache(maxsize=1)
def _split():
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    order = np.random.default_rng(5).permutation(len(y))
    test, train = order[:HELD_OUT], order[HELD_OUT:]
    t = torch.from_numpy
    return (t(x[train]), t(y[train])), (t(x[test]), t(y[test]))


def train_boxes():
    return _split()[0]


def eval_boxes():
    x, y = _split()[1]
    return (x,), y


def example_form():
    x, _ = _split()[1]
    return (x[:4].clone(),)


def calibration_boxes():
    x, _ = _split()[0]
    return [(x[i:i + 4].clone(),) for i in range(0, 64, 4)]
