"""Kiln-exit line app: the camera's 8-bit tile ROIs -> model input -> defect verdict per tile.

A shift's captures are stored by the line PC as captures/<name>.npz (`frames` uint8 (N, 32, 32),
`defects` when QA labelled them)."""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from glaze.config import DEFECTS, CameraSpec

CAPTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures")


@dataclass
class Shift:
    frames: np.ndarray
    defects: np.ndarray = None

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(CAPTURES, name)) as z:
            return cls(z["frames"], z["defects"] if "defects" in z else None)


@dataclass
class RoiPreparer:
    camera: CameraSpec = field(default_factory=CameraSpec)

    def __call__(self, roi):
        """uint8 (32, 32) -> float32 (1, 1, 32, 32) on [0, 1]."""
        side = self.camera.side
        if roi.shape != (side, side):
            raise ValueError(f"ROI {roi.shape}, the model takes ({side}, {side})")
        return torch.from_numpy(roi.astype(np.float32) / self.camera.full_scale).reshape(1, 1, side, side)


class TileInspector:
    def __init__(self, shift_name="qa_shift.npz"):
        self.shift = Shift.load(shift_name)
        self.prepare = RoiPreparer()

    def batches(self, limit=None):
        frames = self.shift.frames if limit is None else self.shift.frames[:limit]
        return [(self.prepare(roi),) for roi in frames]

    def verdicts(self, infer):
        return [DEFECTS[int(torch.as_tensor(infer(x)).argmax())] for (x,) in self.batches()]


def run_inputs():
    return TileInspector().batches(limit=10)


def app_eval():
    insp = TileInspector()
    return insp.batches(), torch.from_numpy(insp.shift.defects)
