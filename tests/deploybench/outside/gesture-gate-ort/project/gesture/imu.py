"""Synthetic wrist-accelerometer recordings (fixed seeds, no download).

A window is 64 samples at 50 Hz of (x, y, z) acceleration in g, as the sensor delivers it: one
row per sample, shape (64, 3). Every window carries gravity along a random wrist tilt plus sensor
noise, and one of five gestures:

    0 rest        nothing but gravity and noise
    1 shake       a 4-7 Hz oscillation along a random, mostly horizontal axis
    2 circle      a slow (0.8-1.5 Hz) rotation in the x-y plane
    3 double_tap  two short spikes on z, 8-16 samples apart
    4 flick       one fast out-and-back pulse on y

The accelerometer clips at +-4 g. The network takes float32 (N, 3, 64): axes first, divided by
the full scale (`to_network`).
"""
from functools import lru_cache

import numpy as np
import torch

from .config import AXES, FULL_SCALE_G, GESTURES, WINDOW

RATE_HZ = 50.0


def _gravity(rng):
    tilt = rng.normal(0, 1, 3) + np.array([0.0, 0.0, 2.5])
    return tilt / np.linalg.norm(tilt)


def _gesture(kind, t, rng):
    motion = np.zeros((WINDOW, AXES))
    if kind == 1:
        axis = np.array([rng.uniform(0.6, 1.0), rng.uniform(-0.5, 0.5), rng.uniform(-0.2, 0.2)])
        axis /= np.linalg.norm(axis)
        amp, freq = rng.uniform(0.8, 1.8), rng.uniform(4.0, 7.0)
        motion += amp * np.sin(2 * np.pi * freq * t + rng.uniform(0, 2 * np.pi))[:, None] * axis
    elif kind == 2:
        amp, freq, phase = rng.uniform(0.4, 0.9), rng.uniform(0.8, 1.5), rng.uniform(0, 2 * np.pi)
        motion[:, 0] += amp * np.sin(2 * np.pi * freq * t + phase)
        motion[:, 1] += amp * np.cos(2 * np.pi * freq * t + phase)
    elif kind == 3:
        first = rng.integers(6, 30)
        for at in (first, first + rng.integers(8, 17)):
            motion[:, 2] += rng.uniform(1.5, 3.0) * np.exp(-0.5 * ((np.arange(WINDOW) - at) / 0.8) ** 2)
    elif kind == 4:
        centre, width = rng.uniform(16, 48), rng.uniform(2.0, 4.0)
        u = (np.arange(WINDOW) - centre) / width
        motion[:, 1] += rng.uniform(1.0, 2.5) * 1.6 * u * np.exp(-0.5 * u ** 2)
    return motion


def record(count, seed):
    """`count` raw windows, float64 (count, 64, 3) in g, and their gesture labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(GESTURES), size=count)
    t = np.arange(WINDOW) / RATE_HZ
    out = np.empty((count, WINDOW, AXES))
    for i, kind in enumerate(labels):
        w = _gravity(rng)[None, :] + _gesture(int(kind), t, rng) + rng.normal(0, 0.03, (WINDOW, AXES))
        out[i] = np.clip(w, -FULL_SCALE_G, FULL_SCALE_G)
    return out, labels.astype(np.int64)


def to_network(raw):
    """Raw (..., 64, 3) windows in g -> float32 tensor (N, 3, 64) scaled to the sensor's full scale."""
    raw = np.asarray(raw, dtype=np.float32).reshape(-1, WINDOW, AXES)
    return torch.from_numpy(np.ascontiguousarray(raw.transpose(0, 2, 1)) / np.float32(FULL_SCALE_G))


def training_set(count=3000, seed=101):
    raw, labels = record(count, seed)
    return to_network(raw), torch.from_numpy(labels)


@lru_cache(maxsize=1)
def _held_out():
    raw, labels = record(500, seed=202)
    return to_network(raw), torch.from_numpy(labels)


def held_out_set():
    """((windows,), labels): 500 held-out windows for evaluation."""
    x, y = _held_out()
    return (x,), y


def one_window():
    """A single held-out window, batch 1, as the wake gate runs it."""
    x, _ = _held_out()
    return (x[:1].clone(),)


def calibration_windows(count=64):
    raw, _ = record(count, seed=303)
    x = to_network(raw)
    return [(x[i:i + 1].clone(),) for i in range(count)]
