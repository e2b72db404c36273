"""The inspection station: camera tiles -> model inputs -> defect calls.

The station's grabber cuts the line-scan image into tiles and tags each with its cross-width
position; a shift's tiles are archived as data/<name>.npz (`tiles` uint8 (N, 32, 32),
`pos_mm` float32 (N,), `labels` when the quality lab graded them).
"""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from stripscan.config import DEFECTS, GreyLevels, LineGeometry

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@dataclass
class ShiftArchive:
    tiles: np.ndarray
    pos_mm: np.ndarray
    labels: np.ndarray = None

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(DATA, name)) as z:
            return cls(z["tiles"], z["pos_mm"], z["labels"] if "labels" in z else None)


@dataclass
class TileEncoder:
    levels: GreyLevels = field(default_factory=GreyLevels)
    geometry: LineGeometry = field(default_factory=LineGeometry)

    def grey(self, tiles_u8):
        """uint8 (..., px, px) -> float32 (N, 1, px, px) in model units."""
        x = (tiles_u8.astype(np.float32) - self.levels.mean) / self.levels.std
        return torch.from_numpy(x.reshape(-1, 1, self.geometry.tile_px, self.geometry.tile_px))

    def position(self, pos_mm):
        return torch.from_numpy(np.asarray(pos_mm, np.float32).reshape(-1, 1))

    def __call__(self, tiles_u8, pos_mm):
        return self.grey(tiles_u8), self.position(pos_mm)


class InspectionStation:
    def __init__(self, shift="shift_b_graded.npz"):
        self.archive = ShiftArchive.load(shift)
        self.encode = TileEncoder()

    def feeds(self, limit=None):
        n = len(self.archive.tiles) if limit is None else limit
        return [self.encode(self.archive.tiles[i], self.archive.pos_mm[i]) for i in range(n)]

    def calls(self, run):
        return [DEFECTS[int(torch.as_tensor(run(*x)).argmax())] for x in self.feeds()]


def run_inputs():
    return InspectionStation().feeds(limit=16)


def app_eval():
    st = InspectionStation()
    return st.feeds(), torch.from_numpy(st.archive.labels)
