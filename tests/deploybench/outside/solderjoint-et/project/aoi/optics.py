"""The camera -> network convention the model was trained with."""
from dataclasses import dataclass

import numpy as np

CROP = 48


@dataclass(frozen=True)
class PatchNorm:
    mean: tuple = (0.40, 0.42, 0.30)
    std: tuple = (0.25, 0.22, 0.22)

    def apply(self, rgb_u8):
        """uint8 (..., H, W, 3) -> float32 (..., H, W, 3), standardised per channel."""
        x = rgb_u8.astype(np.float32) / 255.0
        return (x - np.asarray(self.mean, np.float32)) / np.asarray(self.std, np.float32)


def center_crop(patch, size=CROP):
    h, w = patch.shape[-3], patch.shape[-2]
    t, l = (h - size) // 2, (w - size) // 2
    return patch[..., t:t + size, l:l + size, :]


def to_network_layout(x_hwc):
    """(N, H, W, C) -> (N, C, H, W) contiguous: the layout the network takes."""
    return np.ascontiguousarray(np.transpose(x_hwc, (0, 3, 1, 2)))
