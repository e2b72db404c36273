"""The project's entries for aipc.toml [project]: model, example input, evaluation windows and
calibration windows (all decoded from the stored CAN logs to V, A, degC; shape (N, 3, 128))."""
import os
from functools import lru_cache

import numpy as np
import torch

from packhealth.classifier import PackHealthNet
from telemetry.codec import decode

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "weights", "packhealth.pt")


def build_monitor():
    net = PackHealthNet()
    net.load_state_dict(torch.load(WEIGHTS, map_location="cpu", weights_only=True))
    return net.eval()


def _log(name):
    with np.load(os.path.join(HERE, "logs", name)) as z:
        return decode(z["frames"]), (z["health"] if "health" in z.files else None)


@lru_cache(maxsize=1)
def _eval():
    x, y = _log("eval_windows.npz")
    return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(y)


def eval_windows():
    x, y = _eval()
    return (x,), y


def one_window():
    x, _ = _eval()
    return (x[:1].clone(),)


def calib_windows():
    x, _ = _log("calib_windows.npz")
    return [(torch.from_numpy(np.ascontiguousarray(x[i:i + 1])),) for i in range(len(x))]
