"""Synthetic neck motion of a cow, as the collar's IMU sees it at 10 Hz.

Channels (in this order everywhere): ax, ay, az in g; gx, gy, gz in deg/s. A window is 64
samples (6.4 s). The collar sits loosely, so every window gets its own roll offset.

    0 grazing     head down (pitch about -50 deg), a bite jerk about once a second
    1 ruminating  head up, fine rhythmic chewing (~1.2 Hz) on the lateral axis
    2 walking     head level, the step cadence (~1 Hz) on every axis, yaw swing
    3 resting     head up or level, sensor noise and slow drift only
"""
import numpy as np

RATE_HZ = 10.0
WINDOW = 64
CHANNELS = ("ax", "ay", "az", "gx", "gy", "gz")
BEHAVIOURS = ("grazing", "ruminating", "walking", "resting")

ACC_LSB_PER_G = 8192.0     # +-4 g range
GYRO_LSB_PER_DPS = 65.5    # +-500 deg/s range


def _gravity(pitch_deg, roll_deg):
    p, r = np.deg2rad(pitch_deg), np.deg2rad(roll_deg)
    return np.array([np.sin(p), np.cos(p) * np.sin(r), np.cos(p) * np.cos(r)])


def neck_motion(kind, rng):
    """One window (WINDOW, 6) in physical units (g, deg/s), time-major as the IMU samples it."""
    t = np.arange(WINDOW) / RATE_HZ
    roll = rng.normal(0.0, 12.0)
    phase = rng.uniform(0, 2 * np.pi)
    acc = np.zeros((WINDOW, 3))
    gyr = np.zeros((WINDOW, 3))
    if kind == 0:
        pitch = rng.uniform(-62, -38)
        f = rng.uniform(0.7, 1.3)
        jerk = np.maximum(np.sin(2 * np.pi * f * t + phase), 0.0) ** 4
        acc[:, 0] += rng.uniform(0.10, 0.22) * jerk
        acc[:, 2] += rng.uniform(0.05, 0.12) * jerk
        gyr[:, 1] += rng.uniform(15, 30) * np.gradient(jerk) * RATE_HZ / (2 * np.pi * f)
        gyr[:, 2] += rng.uniform(2, 6) * np.sin(2 * np.pi * 0.3 * t + rng.uniform(0, 6))
    elif kind == 1:
        pitch = rng.uniform(-5, 20)
        f = rng.uniform(1.0, 1.5)
        acc[:, 1] += rng.uniform(0.02, 0.05) * np.sin(2 * np.pi * f * t + phase)
        acc[:, 2] += rng.uniform(0.01, 0.03) * np.sin(4 * np.pi * f * t + phase)
        gyr[:, 0] += rng.uniform(3, 8) * np.cos(2 * np.pi * f * t + phase)
    elif kind == 2:
        pitch = rng.uniform(-20, 0)
        f = rng.uniform(0.8, 1.2)
        step = np.sin(2 * np.pi * f * t + phase)
        acc += rng.uniform(0.15, 0.30) * np.stack([step, 0.6 * np.sin(np.pi * f * t + phase), np.abs(step)], 1)
        gyr[:, 2] += rng.uniform(10, 22) * np.sin(np.pi * f * t + phase)
        gyr[:, 1] += rng.uniform(4, 10) * step
    else:
        pitch = rng.uniform(-10, 30)
        acc += np.cumsum(rng.normal(0, 0.002, (WINDOW, 3)), 0)
    acc += _gravity(pitch, roll)[None, :]
    acc += rng.normal(0.0, 0.015, acc.shape)
    gyr += rng.normal(0.0, 1.5, gyr.shape)
    return np.concatenate([acc, gyr], 1)


def to_counts(window):
    """Physical units -> the IMU's int16 register counts."""
    scale = np.array([ACC_LSB_PER_G] * 3 + [GYRO_LSB_PER_DPS] * 3)
    return np.clip(np.round(window * scale), -32768, 32767).astype(np.int16)


def render_windows(n, seed):
    """n windows of raw counts (n, WINDOW, 6) int16, balanced labels int64."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % len(BEHAVIOURS)
    rng.shuffle(labels)
    counts = np.stack([to_counts(neck_motion(int(k), rng)) for k in labels])
    return counts, labels.astype(np.int64)
