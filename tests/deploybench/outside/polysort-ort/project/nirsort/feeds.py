"""The entries aipc.toml [project] names: what the sorter feeds FlakeNet, built from the
committed captures exactly as the line does it (raw counts -> SNV absorbance, one frame of
FRAME_FLAKES flakes per call).
"""
import os
from functools import lru_cache

import numpy as np
import torch

from .flakenet import FRAME_FLAKES
from .optics import References, prepare

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


@lru_cache(maxsize=None)
def load_capture(name: str):
    """(raw counts (N, bands) uint16, labels (N,), References) of one committed capture."""
    with np.load(os.path.join(DATA, name)) as z:
        return z["raw"], z["labels"], References.from_arrays(z["dark"], z["white"])


def _prepared(name: str):
    raw, labels, refs = load_capture(name)
    return torch.from_numpy(prepare(raw, refs)), torch.from_numpy(labels)


def example_frame():
    """One camera frame: the first FRAME_FLAKES flakes of the acceptance capture."""
    x, _ = _prepared("eval_capture.npz")
    return (x[:FRAME_FLAKES].clone(),)


def acceptance_set():
    """All 512 flakes of the acceptance capture (16 frames), and their polymer labels."""
    x, y = _prepared("eval_capture.npz")
    return (x,), y


def calibration_frames():
    """8 frames of the calibration start-up (256 flakes), one input tuple per frame."""
    x, _ = _prepared("calib_capture.npz")
    return [(x[i:i + FRAME_FLAKES].clone(),) for i in range(0, len(x), FRAME_FLAKES)]
