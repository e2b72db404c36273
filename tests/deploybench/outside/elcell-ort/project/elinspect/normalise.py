"""Camera counts -> the model's input: scale by the ADC full scale, standardise with the
commissioning statistics, add the channel axis."""
from dataclasses import dataclass, field

import numpy as np

from .config import CameraCfg, NormCfg


@dataclass
class CountNormaliser:
    camera: CameraCfg = field(default_factory=CameraCfg)
    norm: NormCfg = field(default_factory=NormCfg)

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """uint16 counts (..., H, W) -> float32 (..., 1, H, W)"""
        x = counts.astype(np.float32) / self.camera.full_scale
        x = (x - self.norm.mean) / self.norm.std
        return x[..., None, :, :].astype(np.float32)
