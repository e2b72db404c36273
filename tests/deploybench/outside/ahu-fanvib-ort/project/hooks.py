"""aipc.toml hooks: model, example, evaluation and calibration batches (v0.5 front end)."""
from functools import lru_cache

import torch

from fanvib.features import FRONT_END
from fanvib.model import load_fanfault
from fanvib.signals import Batch, make_batch

TRAIN = Batch(seed=101, count=3000)
EVAL = Batch(seed=202, count=500)
CALIB = Batch(seed=303, count=64)


@lru_cache(maxsize=None)
def windows(spec: Batch):
    return make_batch(spec)


def spectra(spec: Batch) -> torch.Tensor:
    raw, _ = windows(spec)
    return torch.from_numpy(FRONT_END(raw))


def model():
    return load_fanfault()


def example():
    return (spectra(EVAL)[:1].clone(),)


def eval_set():
    return (spectra(EVAL),), torch.from_numpy(windows(EVAL)[1])


def calibration_set():
    x = spectra(CALIB)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
