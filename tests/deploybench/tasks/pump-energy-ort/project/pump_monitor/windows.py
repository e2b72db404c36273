"""Accelerometer windows (m/s², 1 channel x 128 samples at 1 kHz) of three pump conditions,
simulated with a fixed seed: healthy (the running-speed tone), imbalance (a strong tone at
running speed) and bearing wear (short high-frequency bursts). The vibration level varies from
pump to pump, so the classes overlap in level and differ in shape."""
import numpy as np
import torch

RATE, LENGTH = 1000.0, 128
CONDITIONS = ("healthy", "imbalance", "bearing")


def simulate(count, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(LENGTH) / RATE
    labels = rng.integers(0, len(CONDITIONS), count)
    level = rng.uniform(0.8, 2.5, count)
    speed = rng.uniform(45.0, 55.0, count)
    phase = rng.uniform(0, 2 * np.pi, count)
    x = np.sin(2 * np.pi * speed[:, None] * t + phase[:, None]) * 0.6
    x[labels == 1] *= 2.2
    bursts = np.zeros((count, LENGTH))
    for i in np.flatnonzero(labels == 2):
        for start in rng.integers(0, LENGTH - 8, 4):
            bursts[i, start:start + 8] += np.sin(2 * np.pi * 230.0 * t[:8]) * 1.2
    x = (x + bursts) * level[:, None] + rng.normal(0, 0.15, (count, LENGTH))
    return torch.from_numpy(x[:, None, :].astype(np.float32)), torch.from_numpy(labels).long()


def training_windows():
    return simulate(1200, 21)


def check_windows():
    x, y = simulate(300, 22)
    return (x,), y


def one_window():
    return (simulate(1, 23)[0],)


def shop_floor_windows():
    """Windows recorded on the shop floor for calibration, eight at a time."""
    x, _ = simulate(96, 24)
    return [(x[i:i + 8],) for i in range(0, 96, 8)]
