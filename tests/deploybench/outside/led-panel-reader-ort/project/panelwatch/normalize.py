"""Crop -> reader input. The service gets the LED crop from the camera frame and turns it into
the float tensor the reader network takes: (1, 3, 32, 32) float32, normalised per channel."""
import numpy as np

from panelwatch.camera import CameraFrame
from panelwatch.settings import NormalizerSettings


class CropNormalizer:
    def __init__(self, settings: NormalizerSettings = NormalizerSettings()):
        self.size = settings.crop_size
        self.mean = np.asarray(settings.mean, np.float32).reshape(1, 3, 1, 1)
        self.std = np.asarray(settings.std, np.float32).reshape(1, 3, 1, 1)

    def _check(self, frame: CameraFrame):
        h, w, c = frame.pixels.shape
        if (h, w, c) != (self.size, self.size, 3):
            raise ValueError(f"crop {h}x{w}x{c} from {frame.camera}, the reader takes {self.size}x{self.size}x3")

    def planar(self, frame: CameraFrame) -> np.ndarray:
        """HxWx3 uint8 -> 1x3xHxW float32 in [0, 1]."""
        self._check(frame)
        return (frame.pixels.astype(np.float32) / 255.0).transpose(2, 0, 1)[None]

    def to_input(self, frame: CameraFrame) -> np.ndarray:
        x = self.planar(frame)
        return np.ascontiguousarray((x - self.mean) / self.std, dtype=np.float32)
