"""Synthetic recordings (fixed seeds): what the wrist unit logs for each activity.

A recording holds `imu` float32 (N, T, 6) and `baro_pa` int32 (N, T) (the sensor's raw
pascals), plus `labels` when the session was annotated.
"""
import numpy as np

from .config import ACTIVITIES, SensorLayout

# (step frequency Hz, accel amplitude g, pressure slope hPa/s)
_PROFILE = {
    "still": (0.0, 0.00, 0.0),
    "walk": (1.8, 0.30, 0.0),
    "run": (2.6, 0.85, 0.0),
    "stairs_up": (1.6, 0.32, -0.030),
    "stairs_down": (1.9, 0.30, +0.030),
    "elevator": (0.0, 0.00, 0.16),     # sign drawn per sample (up or down)
}


def record(n, seed, layout=SensorLayout()):
    rng = np.random.default_rng(seed)
    T = layout.window
    t = np.arange(T) / layout.rate_hz
    labels = rng.integers(0, len(ACTIVITIES), size=n)
    imu = np.zeros((n, T, layout.imu_channels), np.float32)
    baro = np.zeros((n, T), np.float64)
    for i, k in enumerate(labels):
        f, amp, slope = _PROFILE[ACTIVITIES[k]]
        f = f * rng.uniform(0.9, 1.1)
        amp = amp * rng.uniform(0.8, 1.25)
        ph = rng.uniform(0, 2 * np.pi)
        grav = rng.normal(0, 1, 3)
        grav = grav / np.linalg.norm(grav)
        for c in range(3):
            imu[i, :, c] = grav[c] + amp * np.sin(2 * np.pi * f * t + ph + c) * rng.uniform(0.5, 1.0)
            imu[i, :, 3 + c] = 0.8 * amp * np.cos(2 * np.pi * f * t + ph + 0.5 * c)
        imu[i] += rng.normal(0, 0.05, imu[i].shape)
        if ACTIVITIES[k] == "elevator":
            slope = slope * rng.choice([-1.0, 1.0])
        slope = slope * rng.uniform(0.8, 1.2)
        base = rng.uniform(955.0, 1032.0)
        baro[i] = base + slope * t + rng.normal(0, 0.02, T)
    baro_pa = np.round(baro * 100.0).astype(np.int32)
    return {"imu": imu, "baro_pa": baro_pa, "labels": labels.astype(np.int64)}
