"""Frame source. On the kiosk this wraps the VL53L5CX ULD driver (one 8x8 frame per ranging
interrupt); in the lab it replays capture files recorded with that driver."""
import os

import numpy as np

CAPTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


class CaptureReplay:
    """Replays data/captures_<split>.npz: each clip as the driver's sequence of frames,
    (8, 8) uint16 millimetres, 0 where the zone status was invalid."""

    def __init__(self, split="eval"):
        z = np.load(os.path.join(CAPTURES, f"captures_{split}.npz"))
        self._clips = z["range_mm"]
        self.labels = z["gesture"].astype(np.int64)

    def __len__(self):
        return len(self._clips)

    def frames(self, i):
        for frame in self._clips[i]:
            yield frame.copy()
