"""aipc.toml [project] entries of the glaze inspection model."""
import torch

from glaze.net import load
from line_camera import RoiPreparer, Shift

PREP = RoiPreparer()


def model():
    return load()


def qa_shift():
    s = Shift.load("qa_shift.npz")
    return (torch.cat([PREP(f) for f in s.frames]),), torch.from_numpy(s.defects)


def one_tile():
    s = Shift.load("qa_shift.npz")
    return (PREP(s.frames[0]),)


def calibration_tiles():
    """Unlabelled tiles of another shift (both strobe states), same camera path."""
    s = Shift.load("calib_shift.npz")
    return [(PREP(f),) for f in s.frames]
