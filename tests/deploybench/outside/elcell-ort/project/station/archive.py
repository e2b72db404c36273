"""Where the station's frames are kept.

- QALot: cells the QA lab graded by hand, exported by the QA tool as 12-bit counts (`counts`
  uint16 (N, H, W), `labels`).
- LineArchive: every cell the line photographs, as the GigE camera delivers them: Mono12 in a
  16-bit container, MSB-aligned (pixel = count << 4), `frames` uint16 (N, H, W) plus the
  container's `pixel_shift`. No labels.
"""
import os
from dataclasses import dataclass

import numpy as np

from elinspect.config import CameraCfg

FRAMES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "frames")


@dataclass
class QALot:
    counts: np.ndarray
    labels: np.ndarray

    @classmethod
    def load(cls, name="qa_lot.npz"):
        with np.load(os.path.join(FRAMES, name)) as z:
            return cls(z["counts"], z["labels"])

    def save(self, name):
        os.makedirs(FRAMES, exist_ok=True)
        np.savez_compressed(os.path.join(FRAMES, name), counts=self.counts, labels=self.labels)


class LineArchive:
    def __init__(self, name, camera: CameraCfg = CameraCfg()):
        with np.load(os.path.join(FRAMES, name)) as z:
            self._frames = z["frames"]
            self.pixel_shift = int(z["pixel_shift"])
        self.camera = camera

    @staticmethod
    def write_shift(name, counts, camera: CameraCfg = CameraCfg()):
        shift = 16 - camera.bit_depth
        os.makedirs(FRAMES, exist_ok=True)
        np.savez_compressed(os.path.join(FRAMES, name), frames=(counts.astype(np.uint16) << shift), pixel_shift=shift)

    def __len__(self):
        return len(self._frames)

    def frames(self, start=0, stop=None):
        """The stored 16-bit container frames."""
        return self._frames[start:stop]

    def counts(self, start=0, stop=None):
        """The camera's 12-bit counts (the container's padding bits dropped)."""
        return self._frames[start:stop] >> self.pixel_shift
