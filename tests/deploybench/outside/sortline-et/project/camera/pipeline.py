"""Frame -> GradeNet input, as the station runs it: a chain of small steps built from LineSettings."""
import numpy as np

from camera.capture import Frame
from camera.settings import LineSettings


class CentreCrop:
    def __init__(self, side):
        self.side = side

    def __call__(self, img):
        h, w = img.shape[:2]
        top, left = (h - self.side) // 2, (w - self.side) // 2
        return img[top:top + self.side, left:left + self.side]


class UnitScale:
    def __init__(self, scale):
        self.scale = np.float32(scale)

    def __call__(self, img):
        return img.astype(np.float32) * self.scale


class Standardise:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, np.float32)
        self.inv_std = 1.0 / np.asarray(std, np.float32)

    def __call__(self, img):
        return (img - self.mean) * self.inv_std


class Planar:
    """(H, W, C) -> contiguous (1, C, H, W)."""

    def __call__(self, img):
        return np.ascontiguousarray(np.moveaxis(img, -1, 0))[None]


class FramePipeline:
    def __init__(self, settings: LineSettings):
        self.settings = settings
        self.steps = [
            CentreCrop(settings.crop),
            UnitScale(settings.unit_scale),
            Standardise(settings.channel_mean, settings.channel_std),
            Planar(),
        ]

    def __call__(self, frame: Frame):
        img = frame.pixels
        for step in self.steps:
            img = step(img)
        return img

    def describe(self):
        return " -> ".join(type(s).__name__ for s in self.steps)
