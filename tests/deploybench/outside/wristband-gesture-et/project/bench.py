"""aipc.toml's model-side entries: the trained network and model-ready windows.

The stored recordings are raw driver counts (data/eval_windows.npz, data/calib_windows.npz);
the functions here pass them through the training feature pipeline (gesturelab/features.py),
so what they return is exactly what the network was trained on.
"""
import os
from functools import lru_cache

import numpy as np
import torch

from gesturelab.features import to_model_input
from gesturelab.tcn import GestureTCN

ROOT = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(ROOT, "weights", "gesture_tcn.pt")
EVAL_FILE = os.path.join(ROOT, "data", "eval_windows.npz")
CALIB_FILE = os.path.join(ROOT, "data", "calib_windows.npz")


def load_tcn(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (seconds)")
    net = GestureTCN()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()


@lru_cache(maxsize=None)
def raw_windows(path=EVAL_FILE):
    with np.load(path) as z:
        return z["counts"], z["gesture"]


def labelled_windows():
    counts, gesture = raw_windows()
    return (torch.from_numpy(to_model_input(counts)),), torch.from_numpy(gesture)


def one_window():
    counts, _ = raw_windows()
    return (torch.from_numpy(to_model_input(counts[:1])),)


def calib_windows():
    counts, _ = raw_windows(CALIB_FILE)
    x = to_model_input(counts)
    return [(torch.from_numpy(x[i:i + 1].copy()),) for i in range(len(x))]
