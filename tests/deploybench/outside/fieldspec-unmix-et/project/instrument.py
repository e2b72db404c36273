"""Entry points aipc.toml names: the classifier as the instrument runs it, and the stored
readings (data/holdout.npz: held-out plots for evaluation, a few training-field readings for
INT8 calibration; `python train.py --regen-data` rebuilds both files from the simulator).
"""
import os
from functools import lru_cache

import numpy as np
import torch

from fieldspec.cover import CoverClassifier

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBRARY = os.path.join(ROOT, "data", "endmembers.npz")
READINGS = os.path.join(ROOT, "data", "holdout.npz")
HEAD_WEIGHTS = os.path.join(ROOT, "weights", "cover_head.pt")


def endmember_library():
    with np.load(LIBRARY) as z:
        return z["spectra"]


def build_classifier():
    if not os.path.isfile(HEAD_WEIGHTS):
        raise FileNotFoundError(f"{HEAD_WEIGHTS} missing: run `python train.py` (seconds)")
    clf = CoverClassifier(endmember_library())
    clf.head.load_state_dict(torch.load(HEAD_WEIGHTS, map_location="cpu", weights_only=True))
    return clf.eval()


@lru_cache(maxsize=1)
def _readings():
    with np.load(READINGS) as z:
        return {k: z[k] for k in z.files}


def holdout():
    r = _readings()
    return (torch.from_numpy(r["reflectance"]),), torch.from_numpy(r["cover"])


def single_trigger():
    return (torch.from_numpy(_readings()["reflectance"][:1].copy()),)


def calibration_readings():
    x = _readings()["calib_reflectance"]
    return [(torch.from_numpy(x[i:i + 1].copy()),) for i in range(len(x))]
