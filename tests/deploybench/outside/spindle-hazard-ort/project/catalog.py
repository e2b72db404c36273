"""What aipc.toml points at: the trained network and the stored snapshot sets.

data/fleet_eval.npz holds the held-out snapshots (spindles the network never saw in training)
and a calibration pool drawn from the training fleet; `python train.py --regen-data` writes it
again from the simulator (same seeds, same bytes).
"""
import os
from functools import lru_cache

import numpy as np
import torch

from spindlewatch.survival import SpindleHazardNet

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "weights", "spindle_hazard.pt")
SNAPSHOTS = os.path.join(HERE, "data", "fleet_eval.npz")


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (a few seconds)")
    net = SpindleHazardNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()


@lru_cache(maxsize=1)
def _snapshots():
    with np.load(SNAPSHOTS) as z:
        return {k: z[k] for k in z.files}


def eval_set():
    s = _snapshots()
    return (torch.from_numpy(s["eval_energies"]),), torch.from_numpy(s["eval_window"])


def example_inputs():
    return (torch.from_numpy(_snapshots()["eval_energies"][:1].copy()),)


def calibration_set():
    x = _snapshots()["calib_energies"]
    return [(torch.from_numpy(x[i:i + 1].copy()),) for i in range(len(x))]
