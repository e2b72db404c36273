"""Calibration inputs for INT8: a stratified draw of training cases (as many malignant as
benign), so the activation ranges see both classes."""
import numpy as np
import torch

from .cohort import training_measurements

PER_CLASS = 32


def _stratified(x, y, per_class, seed=9):
    rng = np.random.default_rng(seed)
    picks = [rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in (0, 1)]
    return x[np.sort(np.concatenate(picks))]


def calibration_cases():
    x, y = training_measurements()
    rows = _stratified(x, y, PER_CLASS)
    return [(torch.from_numpy(r[None].copy()),) for r in rows]
