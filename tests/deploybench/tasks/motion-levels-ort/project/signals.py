"""Data of the motion-levels project: synthetic 3-axis motion windows generated from fixed seeds
(no download). One window is 64 samples of 3 axes, (3, 64) float32, 4 classes:
0 still (sensor noise only), 1 walk (slow sway on the vertical axis), 2 run (faster sway on all
axes), 3 tap (two short bursts). Amplitudes 0.5 to 1.5, Gaussian noise sigma 0.1: the peak of a
window lies between about 0.2 and 3.

aipc.toml [project] names:
- one_window(): one evaluation window, batch 1: motion (1, 3, 64);
- labelled_windows(): ((motion,), labels) of 400 evaluation windows;
- calibration_windows(): 64 training windows, one input tuple each.
"""
from functools import lru_cache

import numpy as np
import torch

AXES, LENGTH, CLASSES = 3, 64, ("still", "walk", "run", "tap")


def synthesize(count, seed, length=LENGTH):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), count)
    t = np.arange(length, dtype=np.float64)[None, :]
    amp = rng.uniform(0.5, 1.5, (count, 1))
    phase = rng.uniform(0, 2 * np.pi, (count, 1))
    x = rng.normal(0, 0.1, (count, AXES, length))
    walk = amp * np.sin(2 * np.pi * t / rng.uniform(24, 40, (count, 1)) + phase)
    run = amp * np.sin(2 * np.pi * t / rng.uniform(6, 12, (count, 1)) + phase)
    start = rng.integers(0, length // 2 - 4, (count, 1))
    tap = amp * 2.0 * (((t - start) % (length // 2)) < 3)
    for i, c in enumerate(labels):
        if c == 1:
            x[i, 2] += walk[i]
        elif c == 2:
            x[i] += run[i] * np.array([[1.0], [0.7], [0.4]])
        elif c == 3:
            x[i, :2] += tap[i]
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(labels.astype(np.int64))


@lru_cache(maxsize=1)
def _evaluation():
    return synthesize(400, seed=11)


def labelled_windows():
    x, y = _evaluation()
    return (x,), y


def one_window():
    x, _ = _evaluation()
    return (x[:1].clone(),)


def calibration_windows():
    x, _ = synthesize(64, seed=12)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
