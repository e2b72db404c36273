"""The stored conveyor frames as the deployment contract wants them (grey levels / 255, NCHW).

sample_frame()      one evaluation frame, batch 1 (the station classifies one part per trigger)
holdout()           ((frames,), part ids) of the 320 evaluation frames
calibration_frames() 48 training frames, one input tuple each (INT8 calibration)
"""
import os
from functools import lru_cache

import numpy as np
import torch

FRAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames")


@lru_cache(maxsize=2)
def load(split):
    with np.load(os.path.join(FRAMES, f"{split}_frames.npz")) as f:
        x = f["frames"].astype(np.float32) / 255.0
        y = f["part"].astype(np.int64)
    return torch.from_numpy(x.reshape(-1, 1, 20, 20).copy()), torch.from_numpy(y)


def holdout():
    x, y = load("eval")
    return (x,), y


def sample_frame():
    x, _ = load("eval")
    return (x[:1].clone(),)


def calibration_frames(n=48):
    x, _ = load("train")
    return [(x[i:i + 1].clone(),) for i in range(n)]
