"""The band's IMU: a 6-axis part streaming int16 counts, FIFO order ax, ay, az, gx, gy, gz.

Firmware 2.x configures the accelerometer at +-8 g (4096 LSB/g) and the gyroscope at
+-2000 dps (16.4 LSB/dps), sampling at 25 Hz.
"""
from dataclasses import dataclass

import numpy as np

CHANNELS = ("ax", "ay", "az", "gx", "gy", "gz")
RATE_HZ = 25
WINDOW = 64          # 2.56 s windows
HOP = 32


@dataclass(frozen=True)
class Sensitivity:
    """LSB per physical unit. The defaults are the part's power-on ranges (+-2 g, +-250 dps)."""
    acc_lsb_per_g: float = 16384.0
    gyro_lsb_per_dps: float = 131.0


BAND_FW2 = Sensitivity(acc_lsb_per_g=4096.0, gyro_lsb_per_dps=16.4)


def counts_to_physical(counts, sens: Sensitivity):
    """(..., 6) int16 counts -> (..., 6) float32: acceleration in g, angular rate in rad/s."""
    x = np.asarray(counts, dtype=np.float32)
    acc = x[..., :3] / sens.acc_lsb_per_g
    gyro = x[..., 3:] / sens.gyro_lsb_per_dps * (np.pi / 180.0)
    return np.concatenate([acc, gyro], axis=-1).astype(np.float32)
