"""aipc.toml [project] entries: the lab's evaluation path."""
import numpy as np
import torch

from bottling.probe import ProbeRecording
from oilcheck.net import load_oilnet
from oilcheck.preprocessing import to_model_input


def model():
    return load_oilnet()


def _prepared(rec):
    x = np.stack([to_model_input(rec.wavenumbers, a) for a in rec.absorbance])
    return torch.from_numpy(x)          # (N, 1, points)


def lab_eval():
    rec = ProbeRecording.open("lot_0412_confirmed.npz")
    return (_prepared(rec),), torch.from_numpy(rec.grades)


def example():
    rec = ProbeRecording.open("lot_0412_confirmed.npz")
    return (_prepared(rec)[:1],)


def calibration():
    rec = ProbeRecording.open("lot_0415_unconfirmed.npz")
    x = _prepared(rec)
    return [(x[i:i + 1],) for i in range(len(x))]
