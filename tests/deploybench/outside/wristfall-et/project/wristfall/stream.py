"""How the companion app reads the watch's IMU log and feeds the detector.

The watch uploads interleaved int16 samples (ax ay az gx gy gz per sample, little endian) in
recordings/<name>.npz (`samples` int16 (N, T, 6) as they arrive, `labels` from the study team).
"""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from .config import DetectorConfig

RECORDINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recordings")


@dataclass
class ImuLog:
    samples: np.ndarray            # int16 (N, T, 6), time-major as the watch streams them
    labels: np.ndarray = None

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(RECORDINGS, name)) as z:
            return cls(z["samples"], z["labels"] if "labels" in z else None)


@dataclass
class WindowBuilder:
    config: DetectorConfig = field(default_factory=DetectorConfig)

    def physical(self, window_counts):
        """int16 (T, 6) -> float32 (6, T): g and rad/s, channels first."""
        imu = self.config.imu
        x = window_counts.astype(np.float32).T
        acc = x[:3] / imu.acc_lsb_per_g
        gyro = np.radians(x[3:] / imu.gyro_lsb_per_dps)
        return np.ascontiguousarray(np.concatenate([acc, gyro]), dtype=np.float32)

    def model_input(self, window_counts):
        return torch.from_numpy(self.physical(window_counts)).unsqueeze(0)
