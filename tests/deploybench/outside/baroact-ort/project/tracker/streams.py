"""The watch app's sensor side: ring buffers of IMU frames and barometer reports."""
from dataclasses import dataclass

import numpy as np


@dataclass
class SensorFrame:
    accel_g: np.ndarray      # (3,)
    gyro_rads: np.ndarray    # (3,)
    pressure_pa: int         # raw barometer report, pascals


class WindowBuffer:
    def __init__(self, length):
        self.length = length
        self.frames = []

    def push(self, frame: SensorFrame):
        self.frames.append(frame)
        if len(self.frames) > self.length:
            self.frames.pop(0)

    def full(self):
        return len(self.frames) == self.length

    def as_array(self):
        """(T, 7) float32: accel, gyro, pressure in hPa (the unit the model reads)."""
        rows = [np.concatenate([f.accel_g, f.gyro_rads, [f.pressure_pa / 100.0]]) for f in self.frames]
        return np.asarray(rows, dtype=np.float32)


def replay(recording, index):
    """Frames of one logged window, in arrival order."""
    imu, pa = recording["imu"][index], recording["baro_pa"][index]
    for t in range(imu.shape[0]):
        yield SensorFrame(imu[t, :3], imu[t, 3:], int(pa[t]))
