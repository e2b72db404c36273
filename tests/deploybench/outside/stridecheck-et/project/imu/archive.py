"""Capture archive: windows recorded by the wristband (field) or the lab's shaker rig (bench).

Every capture file is captures/<name>.npz with `accel` (N, T, 3), `gyro` (N, T, 3) and, for
labelled sessions, `activity` (N,). The wristband stores int16 ADC counts and its sensitivity
(`lsb_per_g`); the bench rig's exporter writes floats. Which unit a file holds is not in the
file: it is declared by the source that lists it (imu/sources.py).
"""
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

CAPTURE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "captures")


@dataclass
class Capture:
    accel: np.ndarray            # (N, T, 3) as stored
    gyro: np.ndarray             # (N, T, 3) dps
    lsb_per_g: Optional[float]
    activity: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.accel)


class CaptureArchive:
    def __init__(self, root=CAPTURE_DIR):
        self.root = root

    def path(self, name):
        return os.path.join(self.root, f"{name}.npz")

    def load(self, name) -> Capture:
        with np.load(self.path(name)) as z:
            return Capture(
                accel=z["accel"],
                gyro=z["gyro"].astype(np.float32),
                lsb_per_g=float(z["lsb_per_g"]) if "lsb_per_g" in z else None,
                activity=z["activity"] if "activity" in z else None,
            )
