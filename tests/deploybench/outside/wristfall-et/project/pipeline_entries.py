"""What aipc.toml [project] names: the detector, its inputs, the study's labelled windows, and
the companion app's own feed."""
import numpy as np
import torch

from wristfall.detector import load_detector
from wristfall.stream import ImuLog, WindowBuilder

BUILDER = WindowBuilder()


def detector():
    return load_detector()


def _batch(log):
    return torch.stack([BUILDER.model_input(w)[0] for w in log.samples])


def study_windows():
    log = ImuLog.load("study_eval.npz")
    return (_batch(log),), torch.from_numpy(log.labels)


def one_window():
    log = ImuLog.load("study_eval.npz")
    return (BUILDER.model_input(log.samples[0]),)


def calibration_windows():
    log = ImuLog.load("calibration.npz")
    return [(BUILDER.model_input(w),) for w in log.samples]


def companion_feed():
    """The windows the companion app passes to the detector during a replayed session."""
    log = ImuLog.load("study_eval.npz")
    return [(BUILDER.model_input(w),) for w in log.samples[:16]]


def companion_eval():
    log = ImuLog.load("study_eval.npz")
    return [(BUILDER.model_input(w),) for w in log.samples], torch.from_numpy(log.labels)
