"""The assay rows: scikit-learn's bundled wine measurements in their raw units, a fixed split."""
import numpy as np
import torch
from sklearn.datasets import load_wine

_SEED = 11


def _split():
    data = load_wine()
    x = data.data.astype(np.float32)
    order = np.random.default_rng(_SEED).permutation(len(x))
    cut = int(0.65 * len(x))
    train, rest = order[:cut], order[cut:]
    return (x[train], data.target[train]), (x[rest], data.target[rest])


def training():
    x, y = _split()[0]
    return torch.from_numpy(x), torch.from_numpy(y).long()


def validation():
    x, y = _split()[1]
    return (torch.from_numpy(x),), torch.from_numpy(y).long()


def one_sample():
    return (torch.from_numpy(_split()[1][0][:1]),)


def calibration():
    """Training rows, as the instrument delivers them, in batches of four."""
    x = _split()[0][0]
    return [(torch.from_numpy(x[i:i + 4]),) for i in range(0, 64, 4)]
