"""The training pipeline's view of the data: band counts -> physical units, channels first.
aipc.toml [project] names the functions here."""
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from gaitband.imu import BAND_FW2, counts_to_physical
from gaitband.wristnet import load_wristnet

NPZ = Path(__file__).resolve().parent.parent / "data" / "windows.npz"


@lru_cache(maxsize=1)
def _npz():
    with np.load(NPZ) as z:
        return {k: z[k] for k in z.files}


def model_ready(counts):
    """(N, 64, 6) int16 counts -> (N, 6, 64) float32 tensor in g / rad/s."""
    x = counts_to_physical(counts, BAND_FW2)
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1)))


def raw_split(name):
    z = _npz()
    return z[f"{name}_x"], torch.from_numpy(z[f"{name}_y"])


def train_split():
    x, y = raw_split("train")
    return model_ready(x), y


def eval_windows():
    x, y = raw_split("eval")
    return (model_ready(x),), y


def export_example():
    (x,), _ = eval_windows()
    return (x[:1].clone(),)


def calibration_windows():
    x = model_ready(_npz()["calib_x"])
    return [(x[i:i + 1].clone(),) for i in range(len(x))]


def wristnet():
    return load_wristnet()
