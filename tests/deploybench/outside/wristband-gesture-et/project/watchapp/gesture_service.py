"""GestureService: turns the IMU driver's int16 sample stream into model calls.

The driver hands over little-endian int16 frames (ax ay az gx gy gz).  The service slices a
sliding window (64 samples, hop 32), prepares it for the network with the normalisation
statistics shipped in the model bundle (gesturelab/imu_norm.json) and runs the deployed model.
"""
import json
import os

import numpy as np

WINDOW, HOP = 64, 32
INT16_FULL_SCALE = 32768.0
BUNDLE_NORM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gesturelab", "imu_norm.json")


class GestureService:
    def __init__(self, runner=None, norm_path=BUNDLE_NORM):
        with open(norm_path) as f:
            norm = json.load(f)
        self.mean = np.array(norm["mean"], dtype=np.float32)
        self.std = np.array(norm["std"], dtype=np.float32)
        self.runner = runner  # callable: (1, 6, WINDOW) float32 -> logits

    def prepare(self, frames):
        """(WINDOW, 6) int16 driver frames -> (1, 6, WINDOW) float32 network input."""
        x = np.asarray(frames, dtype=np.float32) / INT16_FULL_SCALE
        z = (x - self.mean) / self.std
        return np.ascontiguousarray(z.T[None], dtype=np.float32)

    @staticmethod
    def read_log(path):
        """A session log as the watch writes it: raw <i2, 6 values per frame."""
        return np.fromfile(path, dtype="<i2").reshape(-1, 6)

    def windows(self, stream):
        for start in range(0, len(stream) - WINDOW + 1, HOP):
            yield stream[start:start + WINDOW]

    def classify(self, frames):
        logits = self.runner(self.prepare(frames))
        return int(np.argmax(logits))
