"""Entries of aipc.toml [project]: the network, one clip, the labelled evaluation clips and the
calibration clips, as float32 waveforms (N, 1, 2048) in recorder units (int16 / 4096)."""
import os
from functools import lru_cache

import numpy as np
import torch

from hydro.listener import HarbourListener
from hydro.scene import from_counts

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "weights", "harbour_listener.pt")


def load_listener():
    net = HarbourListener()
    net.load_state_dict(torch.load(WEIGHTS, map_location="cpu", weights_only=True))
    return net.eval()


def _wave(pcm):
    return torch.from_numpy(from_counts(pcm)[:, None, :].copy())


@lru_cache(maxsize=1)
def _labelled():
    with np.load(os.path.join(HERE, "recordings", "labelled_eval.npz")) as z:
        return _wave(z["pcm"]), torch.from_numpy(z["label"])


def labelled_clips():
    x, y = _labelled()
    return (x,), y


def first_clip():
    x, _ = _labelled()
    return (x[:1].clone(),)


def calibration_clips():
    with np.load(os.path.join(HERE, "recordings", "calibration.npz")) as z:
        x = _wave(z["pcm"])
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
