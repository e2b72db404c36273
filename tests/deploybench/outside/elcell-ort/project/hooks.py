"""Entries aipc.toml [project] names."""
import torch

from elinspect.model import load_inspector
from elinspect.normalise import CountNormaliser
from station.archive import LineArchive, QALot

NORMALISE = CountNormaliser()
CALIB_CELLS = 64


def inspector():
    return load_inspector()


def qa_lot():
    lot = QALot.load()
    return (torch.from_numpy(NORMALISE(lot.counts)),), torch.from_numpy(lot.labels)


def one_cell():
    lot = QALot.load()
    return (torch.from_numpy(NORMALISE(lot.counts[:1])),)


def shift_cells():
    """Unlabelled cells from the line archive (shift B), for INT8 calibration."""
    archive = LineArchive("shift_b.npz")
    crops = archive.frames(0, CALIB_CELLS)
    return [(torch.from_numpy(NORMALISE(c[None])),) for c in crops]
