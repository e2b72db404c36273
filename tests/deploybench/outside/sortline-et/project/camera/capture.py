"""Frame capture: the line camera's recorder stores a shift as frames/<shift>.npz
(`frames` uint8 (N, 40, 40, 3) as the SDK delivers them, `pixel_order`, and `kinds` when the
quality auditor labelled the shift)."""
import os
from dataclasses import dataclass

import numpy as np

FRAMES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "frames")


@dataclass(frozen=True)
class Frame:
    pixels: np.ndarray      # (H, W, 3) uint8
    pixel_order: str        # channel order of `pixels`, e.g. "bgr"
    seq: int


class FrameStore:
    def __init__(self, shift):
        with np.load(os.path.join(FRAMES_DIR, shift)) as z:
            self._frames = z["frames"]
            self.pixel_order = str(z["pixel_order"])
            self._kinds = z["kinds"] if "kinds" in z.files else None

    def __len__(self):
        return len(self._frames)

    def frame(self, i):
        return Frame(self._frames[i], self.pixel_order, i)

    def __iter__(self):
        return (self.frame(i) for i in range(len(self)))

    def raw(self):
        return self._frames

    def kinds(self):
        if self._kinds is None:
            raise ValueError("this shift was not audited: no kinds recorded")
        return self._kinds
