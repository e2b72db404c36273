"""scikit-learn's bundled breast-cancer data (569 biopsies, 30 measurements, benign/malignant;
no download). The network is fed z-scores: each measurement minus the training cohort's mean,
over its standard deviation (float32, (N, 30)). 170 cases are held out for validation (fixed
seed)."""
import numpy as np
import torch
from sklearn.datasets import load_breast_cancer

VALIDATION = 170
_state = {}


def _cohort():
    if not _state:
        d = load_breast_cancer()
        order = np.random.RandomState(4).permutation(len(d.target))
        _state.update(x=d.data.astype(np.float32), y=d.target.astype(np.int64),
                      val=order[:VALIDATION], train=order[VALIDATION:])
        train = _state["x"][_state["train"]]
        _state.update(mean=train.mean(0), scale=train.std(0))
    return _state


def zscore(measurements):
    c = _cohort()
    return ((measurements - c["mean"]) / c["scale"]).astype(np.float32)


def training_measurements():
    """The training cohort as measured (micrometres, square micrometres, ratios)."""
    c = _cohort()
    return c["x"][c["train"]], c["y"][c["train"]]


def training_cases():
    x, y = training_measurements()
    return torch.from_numpy(zscore(x)), torch.from_numpy(y)


def validation_cases():
    c = _cohort()
    return (torch.from_numpy(zscore(c["x"][c["val"]])),), torch.from_numpy(c["y"][c["val"]])


def single_case():
    return (validation_cases()[0][0][:1].clone(),)
