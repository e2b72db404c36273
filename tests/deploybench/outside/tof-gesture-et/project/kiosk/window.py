"""Rolling window over the last FRAMES driver frames."""
import numpy as np
import torch

from zonegest.prep import FAR_MM
from zonegest.sim import FRAMES, ZONES


class ZoneWindow:
    """Keeps the newest FRAMES frames. The driver hands zones row-major per frame; the window
    appends each frame along the last axis, so the buffer is (rows, cols, time)."""

    def __init__(self, frames=FRAMES):
        self._buf = np.zeros((ZONES, ZONES, frames), np.uint16)
        self._count = 0

    def push(self, frame):
        self._buf[..., :-1] = self._buf[..., 1:]
        self._buf[..., -1] = frame
        self._count += 1

    def full(self):
        return self._count >= self._buf.shape[-1]

    def reset(self):
        self._buf[:] = 0
        self._count = 0

    def to_model_input(self):
        """The clip as the network's input tensor: zone ranges in [0, 1], invalid zones far."""
        mm = self._buf
        far = np.where(mm == 0, FAR_MM, np.minimum(mm, FAR_MM))
        depth = far / FAR_MM
        return torch.from_numpy(depth[np.newaxis])
