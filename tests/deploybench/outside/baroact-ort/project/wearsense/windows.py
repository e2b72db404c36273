"""Recording files -> model windows (float32 (N, T, 7): 6 IMU channels + pressure in hPa)."""
import os

import numpy as np
import torch

RECORDINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recordings")


def load_recording(name):
    with np.load(os.path.join(RECORDINGS, name)) as z:
        return {k: z[k] for k in z.files}


def to_windows(imu, baro_pa):
    hpa = baro_pa.astype(np.float32) / 100.0
    x = np.concatenate([imu.astype(np.float32), hpa[..., None]], axis=-1)
    return torch.from_numpy(np.ascontiguousarray(x))
