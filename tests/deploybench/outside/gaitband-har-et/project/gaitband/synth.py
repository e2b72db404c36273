"""Synthetic band recordings (fixed seed): int16 FIFO counts of 6-axis IMU windows."""
import numpy as np

from gaitband.imu import BAND_FW2, RATE_HZ, WINDOW

ACTIVITIES = ["resting", "walking", "running", "cycling", "brushing_teeth"]

# (step/stroke frequency Hz, acc amplitude g, gyro amplitude dps)
PROFILE = {
    "resting": (0.3, 0.02, 4.0),
    "walking": (1.8, 0.30, 70.0),
    "running": (2.7, 0.90, 220.0),
    "cycling": (1.3, 0.08, 25.0),
    "brushing_teeth": (4.0, 0.12, 260.0),
}


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def window_counts(rng, activity, n=WINDOW):
    f, a_acc, a_gyro = PROFILE[activity]
    f *= rng.uniform(0.8, 1.25)
    a_acc *= rng.uniform(0.6, 1.5)
    a_gyro *= rng.uniform(0.6, 1.5)
    t = np.arange(n) / RATE_HZ
    phase = rng.uniform(0, 2 * np.pi)
    gravity = _unit(rng) * np.array([0.6, 0.6, 1.0])
    gravity /= np.linalg.norm(gravity)
    acc_axis, gyro_axis = _unit(rng), _unit(rng)
    wave = np.sin(2 * np.pi * f * t + phase) + 0.3 * np.sin(4 * np.pi * f * t + 2 * phase)
    acc = gravity + np.outer(wave, acc_axis) * a_acc + rng.normal(0, 0.03, (n, 3))
    gyro = np.outer(np.cos(2 * np.pi * f * t + phase), gyro_axis) * a_gyro + rng.normal(0, 3.0, (n, 3))
    counts = np.concatenate([acc * BAND_FW2.acc_lsb_per_g, gyro * BAND_FW2.gyro_lsb_per_dps], axis=1)
    return np.clip(np.round(counts), -32768, 32767).astype(np.int16)


def labelled_windows(seed, per_class):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(ACTIVITIES)), per_class)
    rng.shuffle(labels)
    return np.stack([window_counts(rng, ACTIVITIES[k]) for k in labels]), labels.astype(np.int64)
