"""aipc.toml [project] entries of the solder-joint inspector."""
import torch

from aoi.net import load_jointnet
from aoi.optics import PatchNorm, center_crop, to_network_layout
from aoi.synth import make_patches
from linecam.capture import CaptureLog

NORM = PatchNorm()


def _prepare(rgb_u8):
    return torch.from_numpy(to_network_layout(NORM.apply(center_crop(rgb_u8))))


def jointnet():
    return load_jointnet()


def lot_eval():
    """The recorded lot with the rework operator's verdicts (same joints, same order as CaptureLog)."""
    log = CaptureLog()
    import numpy as np
    return (_prepare(np.stack([r.rgb for r in log.rois])),), torch.from_numpy(log.truth)


def one_joint():
    log = CaptureLog(n=1)
    return (_prepare(log.rois[0].rgb[None]),)


def calibration_joints():
    patches, _ = make_patches(64, seed=99)
    return [(_prepare(p[None]),) for p in patches]
