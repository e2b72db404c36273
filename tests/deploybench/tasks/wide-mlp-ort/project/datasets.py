"""scikit-learn's bundled 8x8 digits as flat 64-value rows scaled to [0, 1]: a fixed 70/30 split."""
import numpy as np
import torch
from sklearn.datasets import load_digits


def _split():
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    order = np.random.default_rng(7).permutation(len(x))
    cut = int(0.7 * len(x))
    return (x[order[:cut]], d.target[order[:cut]]), (x[order[cut:]], d.target[order[cut:]])


def train_rows():
    return _split()[0]


def held_out():
    x, y = _split()[1]
    return (torch.from_numpy(x),), torch.from_numpy(y).long()


def sample_batch():
    return (torch.from_numpy(_split()[1][0][:4]),)


def calibration_rows():
    x = _split()[0][0]
    return [(torch.from_numpy(x[i:i + 8]),) for i in range(0, 256, 8)]
