"""Synthetic accelerometer recordings of a rotating machine (fixed seed, no download): 2,048
samples per window at 4 kHz, one axis, standardised per window. Five conditions:

0 healthy (shaft tone + noise), 1 imbalance (strong 1x tone), 2 misalignment (strong 2x tone),
3 bearing wear (short high-frequency bursts), 4 looseness (many harmonics of the shaft rate).
"""
import numpy as np
import torch

WINDOW, RATE, CONDITIONS = 2048, 4000.0, 5


def _window(kind, rng):
    t = np.arange(WINDOW) / RATE
    f0 = rng.uniform(20, 40)
    phase = rng.uniform(0, 2 * np.pi, size=8)
    x = 0.4 * np.sin(2 * np.pi * f0 * t + phase[0]) + rng.normal(0, 0.5, WINDOW)
    if kind == 1:
        x += 1.2 * np.sin(2 * np.pi * f0 * t + phase[1])
    elif kind == 2:
        x += 1.0 * np.sin(2 * np.pi * 2 * f0 * t + phase[2])
    elif kind == 3:
        period = int(RATE / rng.uniform(60, 120))
        for start in range(rng.integers(0, period), WINDOW - 40, period):
            x[start:start + 40] += 1.5 * np.sin(2 * np.pi * 900 * t[:40]) * np.exp(-np.arange(40) / 10)
    elif kind == 4:
        for k in range(2, 8):
            x += 0.35 * np.sin(2 * np.pi * k * f0 * t + phase[k])
    return (x - x.mean()) / x.std()


def windows(count, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CONDITIONS, size=count)
    x = np.stack([_window(int(k), rng) for k in labels]).astype(np.float32)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(labels.astype(np.int64))


def fit_windows():
    return windows(1000, seed=31)


def check_windows():
    x, y = windows(300, seed=32)
    return (x,), y


def one_window():
    return (check_windows()[0][0][:1].clone(),)


def calibration_windows(count=32):
    x, _ = windows(count, seed=33)
    return [(x[i:i + 1].clone(),) for i in range(count)]
