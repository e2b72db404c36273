"""scikit-learn's bundled wine data (178 samples, 13 chemical measurements, 3 cultivars; no
download). The network takes the measurements standardised with the training rows' mean and
standard deviation (float32, (N, 13)); 60 rows are held out for testing (fixed seed)."""
import numpy as np
import torch
from sklearn.datasets import load_wine

TEST_ROWS = 60
_memo = {}


def _split():
    if not _memo:
        wine = load_wine()
        x, y = wine.data, wine.target.astype(np.int64)
        order = np.random.RandomState(21).permutation(len(y))
        test, train = order[:TEST_ROWS], order[TEST_ROWS:]
        mu, sigma = x[train].mean(0), x[train].std(0)
        _memo.update(raw=x, y=y, train=train, test=test, mu=mu, sigma=sigma)
    return _memo


def standardise(raw):
    s = _split()
    return ((raw - s["mu"]) / s["sigma"]).astype(np.float32)


def raw_training_rows():
    """The training rows in the lab's units (mg/l, degrees, ...), as the lab logger records them."""
    s = _split()
    return s["raw"][s["train"]]


def train_split():
    s = _split()
    return torch.from_numpy(standardise(s["raw"][s["train"]])), torch.from_numpy(s["y"][s["train"]])


def test_split():
    s = _split()
    return (torch.from_numpy(standardise(s["raw"][s["test"]])),), torch.from_numpy(s["y"][s["test"]])


def one_row():
    return (test_split()[0][0][:1].clone(),)
