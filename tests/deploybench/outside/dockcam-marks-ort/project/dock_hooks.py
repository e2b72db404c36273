"""Entry points of the deployment (aipc.toml [project])."""
import numpy as np
import torch

from dockcam.capture import CaptureLog
from dockcam.recognizer import load_recognizer

DAY_SHIFT = 0  # exposure tag of normally exposed frames (dockcam.glyphs.EXPOSURES)


def build_recognizer():
    return load_recognizer()


def _frames(log):
    return torch.from_numpy(log.frames.astype(np.float32) / 255.0).unsqueeze(1).contiguous()


def holdout():
    log = CaptureLog.open("holdout.npz")
    return (_frames(log),), torch.from_numpy(log.marks)


def example_frame():
    """A typical day-shift frame (the first normally exposed one of the held-out log)."""
    log = CaptureLog.open("holdout.npz")
    i = int(np.flatnonzero(log.exposure == DAY_SHIFT)[0])
    return (_frames(log)[i:i + 1].clone(),)


def calibration_frames():
    log = CaptureLog.open("calibration.npz")
    x = _frames(log)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
