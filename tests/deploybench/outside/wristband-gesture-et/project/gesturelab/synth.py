"""Synthetic wristband recordings, labelled, as raw driver counts.

Six gestures, each a physical motion model (g and deg/s) on a random wrist orientation,
with sensor noise and bias, then quantised to int16 counts like the driver delivers them.
"""
from dataclasses import dataclass

import numpy as np

from .imu import SAMPLE_RATE_HZ, WINDOW, si_to_counts

GESTURES = ("idle", "flick", "twist", "raise_to_wake", "shake", "double_tap")


@dataclass
class Recordings:
    counts: np.ndarray   # (n, WINDOW, 6) int16, time-major as the driver streams them
    gesture: np.ndarray  # (n,) int64


def _rot(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    r = np.eye(3)
    r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
    return r


def _bump(t, t0, width):
    return np.exp(-0.5 * ((t - t0) / width) ** 2)


def _one(kind, rng):
    t = np.arange(WINDOW) / SAMPLE_RATE_HZ
    roll, pitch = rng.uniform(-0.5, 0.5), rng.uniform(-0.4, 0.4)
    g0 = _rot(0, roll) @ _rot(1, pitch) @ np.array([0.0, 0.0, 1.0])
    acc = np.tile(g0, (WINDOW, 1))
    gyro = np.zeros((WINDOW, 3))
    t0 = rng.uniform(0.35, 0.9)
    if kind == "flick":
        w = rng.uniform(0.04, 0.07)
        acc[:, 0] += rng.uniform(1.8, 3.0) * (_bump(t, t0, w) - 0.6 * _bump(t, t0 + 2.5 * w, w))
        gyro[:, 1] += rng.uniform(220, 380) * (_bump(t, t0 + 0.5 * w, w) - _bump(t, t0 + 2 * w, w))
    elif kind == "twist":
        rate = rng.uniform(160, 320) * rng.choice([-1, 1]) * _bump(t, t0, 0.12)
        gyro[:, 0] += rate
        angle = np.cumsum(rate) / SAMPLE_RATE_HZ * np.pi / 180
        acc = np.stack([_rot(0, a) @ g0 for a in angle])
    elif kind == "raise_to_wake":
        rate = rng.uniform(80, 150) * _bump(t, t0, 0.2)
        gyro[:, 1] += rate
        angle = np.cumsum(rate) / SAMPLE_RATE_HZ * np.pi / 180
        acc = np.stack([_rot(1, a) @ g0 for a in angle]) + 0.15 * _bump(t, t0, 0.2)[:, None] * np.array([1, 0, 0])
    elif kind == "shake":
        f, ph = rng.uniform(4.5, 7.0), rng.uniform(0, 2 * np.pi)
        acc[:, 1] += rng.uniform(1.0, 1.8) * np.sin(2 * np.pi * f * t + ph)
        gyro[:, 2] += rng.uniform(100, 200) * np.cos(2 * np.pi * f * t + ph)
    elif kind == "double_tap":
        gap = rng.uniform(0.18, 0.3)
        for tt in (t0 - gap / 2, t0 + gap / 2):
            acc[:, 2] += rng.uniform(0.8, 1.4) * (_bump(t, tt, 0.015) - 0.5 * _bump(t, tt + 0.03, 0.015))
        gyro[:, 0] += rng.uniform(5, 15) * _bump(t, t0, 0.1)
    acc += rng.normal(0, 0.02, size=acc.shape) + rng.normal(0, 0.02, size=3)     # noise, bias
    gyro += rng.normal(0, 1.5, size=gyro.shape) + rng.normal(0, 2.0, size=3)
    return np.concatenate([acc, gyro], axis=1)


def record(n, seed):
    rng = np.random.default_rng(seed)
    gesture = rng.integers(0, len(GESTURES), size=n)
    si = np.stack([_one(GESTURES[g], rng) for g in gesture])
    return Recordings(si_to_counts(si), gesture.astype(np.int64))
