"""Loom station loop: the line-scan camera's tiles arrive as uint8 grey patches (32x32); each
is standardised and scored, one patch per call (the station runs the model at batch 1).

A captured shift is stored as data/<name>.npz (`tiles` uint8 (N, 32, 32), `defects` if an
operator labelled it)."""
import os
from dataclasses import dataclass

import numpy as np
import torch

from weavecheck.config import DEFECTS

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@dataclass
class Capture:
    tiles: np.ndarray
    defects: np.ndarray = None

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(DATA, name)) as z:
            return cls(z["tiles"], z["defects"] if "defects" in z else None)


@dataclass(frozen=True)
class TileStandardiser:
    """Camera counts -> the trunk's input scale (the statistics train.py used)."""
    mean: float = 0.5
    std: float = 0.25

    def __call__(self, tile: np.ndarray) -> torch.Tensor:
        x = (tile.astype(np.float32) / 255.0 - self.mean) / self.std
        return torch.from_numpy(np.ascontiguousarray(x)).reshape(1, 1, *tile.shape[-2:])


STANDARDISE = TileStandardiser()


class Station:
    def __init__(self, capture="shift_review.npz"):
        self.capture = Capture.load(capture)
        self.prep = STANDARDISE

    def feed(self, limit=None):
        tiles = self.capture.tiles if limit is None else self.capture.tiles[:limit]
        return [(self.prep(t),) for t in tiles]

    def verdicts(self, score):
        return [DEFECTS[int(torch.as_tensor(score(x)).argmax())] for (x,) in self.feed()]


def run_inputs():
    return Station().feed(limit=16)


def app_eval():
    st = Station()
    return st.feed(), torch.from_numpy(st.capture.defects)
