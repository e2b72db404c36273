"""aipc.toml [project] entries of the strip inspection model."""
import torch

from line_station import ShiftArchive, TileEncoder
from stripscan.network import load_stripnet

ENCODE = TileEncoder()


def model():
    return load_stripnet()


def graded_shift():
    a = ShiftArchive.load("shift_b_graded.npz")
    return ENCODE(a.tiles, a.pos_mm), torch.from_numpy(a.labels)


def one_tile():
    a = ShiftArchive.load("shift_b_graded.npz")
    return ENCODE(a.tiles[:1], a.pos_mm[:1])


def calibration_tiles():
    """Ungraded tiles of another shift, same grabber and encoder."""
    a = ShiftArchive.load("shift_c_ungraded.npz")
    return [ENCODE(a.tiles[i], a.pos_mm[i]) for i in range(len(a.tiles))]
