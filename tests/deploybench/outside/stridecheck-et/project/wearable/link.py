"""BLE link of the wristband: every notification carries one window of raw IMU samples."""
from dataclasses import dataclass

import numpy as np


@dataclass
class WindowPacket:
    seq: int
    accel_counts: np.ndarray     # (T, 3) int16
    gyro_dps: np.ndarray         # (T, 3) float32
    lsb_per_g: float


def replay(capture, limit=None):
    """Packets the phone would have received for a recorded capture."""
    n = len(capture) if limit is None else min(limit, len(capture))
    for i in range(n):
        yield WindowPacket(i, capture.accel[i], capture.gyro[i], capture.lsb_per_g)
