"""Entries aipc.toml [project] names."""
import torch

from loom_station import STANDARDISE, Capture
from weavecheck.inspector import load_inspector


def inspector():
    return load_inspector()


def _batch(tiles):
    return torch.cat([STANDARDISE(t) for t in tiles])


def review_set():
    c = Capture.load("shift_review.npz")
    return (_batch(c.tiles),), torch.from_numpy(c.defects)


def one_tile():
    c = Capture.load("shift_review.npz")
    return (STANDARDISE(c.tiles[0]),)


def calibration_tiles():
    c = Capture.load("shift_calibration.npz")
    return [(STANDARDISE(t),) for t in c.tiles]
