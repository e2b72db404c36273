"""ROI -> network tensor, the station's own preprocessing chain."""
from dataclasses import dataclass, field

import numpy as np
import torch

from aoi.optics import PatchNorm, center_crop


@dataclass
class CropBatch:
    pixels: np.ndarray          # float32 (N, 48, 48, 3), standardised

    def to_tensor(self):
        # one contiguous float32 block for the runtime
        return torch.from_numpy(np.ascontiguousarray(self.pixels, dtype=np.float32))


@dataclass
class RoiPreprocessor:
    norm: PatchNorm = field(default_factory=PatchNorm)

    def batch(self, rois):
        crops = np.stack([center_crop(r.rgb) for r in rois])
        return CropBatch(self.norm.apply(crops))
