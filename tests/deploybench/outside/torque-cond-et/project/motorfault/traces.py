"""Synthetic torque traces from a servo drive (fixed seeds, no download).

The drive controller logs motor torque (normalised to rated torque) at 1 kHz; the monitor
classifies windows of 32 samples into four conditions:

    0 healthy        commutation ripple only (period 4 samples), small
    1 cogging        strong ripple at the magnet pitch (period 8 samples)
    2 bearing        sharp torque spikes every 9 to 13 samples
    3 misalignment   a once-per-revolution swing (period 32 samples)

A quarter of the windows are logged while the drive holds position at low load ("idle"): the
same signatures at a tenth of the amplitude, so the window's spread falls below the sensor's
noise floor.

aipc.toml [project] names example_window() (one window, batch 1: torque (1, 32)),
test_windows() ((torque (500, 32),), labels) and calibration_windows() (64 tuples).
"""
from functools import lru_cache

import numpy as np
import torch

WINDOW = 32
CONDITIONS = ("healthy", "cogging", "bearing", "misalignment")


def _signature(cond, t, rng):
    phase = rng.uniform(0, 2 * np.pi)
    if cond == 0:
        return 0.15 * np.sin(2 * np.pi * t / 4 + phase)
    if cond == 1:
        return 0.8 * np.sin(2 * np.pi * t / 8 + phase) + 0.15 * np.sin(2 * np.pi * t / 4)
    if cond == 2:
        gap = rng.uniform(9, 13)
        since = (t + rng.uniform(0, gap)) % gap
        return 1.2 * np.exp(-since / 0.8) + 0.15 * np.sin(2 * np.pi * t / 4 + phase)
    return 0.7 * np.sin(2 * np.pi * t / WINDOW + phase) + 0.15 * np.sin(2 * np.pi * t / 4)


def drive_log(count, seed, idle_share=0.25):
    """`count` windows: float32 (count, 32) torque, int64 labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CONDITIONS), count)
    t = np.arange(WINDOW, dtype=np.float64)
    out = np.empty((count, WINDOW), dtype=np.float32)
    for i, cond in enumerate(labels):
        idle = rng.random() < idle_share
        amp = rng.uniform(0.05, 0.1) if idle else rng.uniform(0.7, 1.3)
        load = rng.uniform(0.05, 0.2) if idle else rng.uniform(0.3, 0.9)
        noise = rng.normal(0, 0.005 if idle else 0.04, WINDOW)
        out[i] = load + amp * _signature(int(cond), t, rng) + noise
    return torch.from_numpy(out), torch.from_numpy(labels.astype(np.int64))


@lru_cache(maxsize=1)
def _test():
    return drive_log(500, seed=77)


def training_windows():
    return drive_log(4000, seed=76)


def test_windows():
    x, y = _test()
    return (x,), y


def example_window():
    x, _ = _test()
    return (x[:1].clone(),)


def calibration_windows():
    x, _ = drive_log(64, seed=78)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
