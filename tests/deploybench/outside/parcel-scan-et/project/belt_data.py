"""Entry points named in aipc.toml [project]: the model, its example input, the held-out parcels
and the calibration parcels. Everything the loader gives the model has TRAIN_POINTS points per
scan (batched tensors need one size), prepared like training: centred, scaled, resampled."""
import os
from functools import lru_cache

import numpy as np
import torch

from sorter.geometry import unpack
from sorter.pointnet import ParcelPointNet
from sorter.prep import TRAIN_POINTS, centre_and_scale, resample

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "weights", "parcel_pointnet.pt")


def load_classifier():
    net = ParcelPointNet()
    net.load_state_dict(torch.load(WEIGHTS, map_location="cpu", weights_only=True))
    return net.eval()


def _read(name):
    with np.load(os.path.join(HERE, "scans", name)) as z:
        scans = unpack(z["points"], z["offsets"])
        labels = z["labels"] if "labels" in z.files else None
    return scans, labels


def _loader_view(scans, seed):
    rng = np.random.default_rng(seed)
    return np.stack([resample(centre_and_scale(s), TRAIN_POINTS, rng) for s in scans])


@lru_cache(maxsize=1)
def _holdout():
    scans, labels = _read("holdout.npz")
    return torch.from_numpy(_loader_view(scans, 7)), torch.from_numpy(labels)


def holdout():
    x, y = _holdout()
    return (x,), y


def reference_scan():
    x, _ = _holdout()
    return (x[:1].clone(),)


def calibration_scans():
    scans, _ = _read("calibration.npz")
    x = torch.from_numpy(_loader_view(scans, 11))
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
