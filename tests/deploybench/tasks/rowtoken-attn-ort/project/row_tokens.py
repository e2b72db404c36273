"""scikit-learn's bundled 8x8 digits (no download) read as sequences: each image row is one
token of 8 intensities in [0, 1], so an image is a (8 tokens, 8 features) float32 sequence.
A fixed seed holds out 350 images for testing."""
import numpy as np
import torch
from sklearn.datasets import load_digits

TEST = 350
_split = []


def _data():
    if not _split:
        d = load_digits()
        x = (d.images / 16.0).astype(np.float32)          # (N, 8, 8): (image, row, column)
        y = d.target.astype(np.int64)
        idx = np.random.default_rng(17).permutation(len(y))
        _split.extend([(torch.from_numpy(x[idx[TEST:]]), torch.from_numpy(y[idx[TEST:]])),
                       (torch.from_numpy(x[idx[:TEST]]), torch.from_numpy(y[idx[:TEST]]))])
    return _split


def fitting_sequences():
    return _data()[0]


def test_sequences():
    x, y = _data()[1]
    return (x,), y


def sample_sequence():
    return (_data()[1][0][:1].clone(),)


def calibration_sequences(n=48):
    x = _data()[0][0]
    return [(x[i:i + 1].clone(),) for i in range(n)]
