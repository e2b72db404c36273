"""Board captures: the ROI extractor hands over one uint8 RGB patch per solder joint."""
from dataclasses import dataclass

import numpy as np

from aoi.synth import make_patches


@dataclass
class JointROI:
    board: str
    ref: str            # component reference, e.g. "R12.1"
    rgb: np.ndarray     # uint8 (56, 56, 3) as the camera delivers it


class CaptureLog:
    """A recorded production lot (synthetic, seeded); `truth` is the rework operator's verdict."""

    def __init__(self, seed=11, n=500):
        patches, self.truth = make_patches(n, seed)
        self.rois = [JointROI(f"B{i // 40:03d}", f"J{i % 40}", p) for i, p in enumerate(patches)]
