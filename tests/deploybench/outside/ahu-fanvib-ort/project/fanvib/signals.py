"""Synthetic triaxial vibration windows of an AHU supply fan (fixed seeds; no field data shipped).

One window: 3 axes (radial-x, radial-y, axial) x 256 samples at 2048 Hz, in g. Classes:
0 healthy, 1 imbalance (strong 1x running speed, radial), 2 misalignment (2x and 1x, axial),
3 bearing outer-race (BPFO tone amplitude-modulated, with its harmonics), 4 looseness (a comb of
running-speed harmonics and sub-harmonics). Running speed, amplitudes and noise vary per window.
"""
from dataclasses import dataclass

import numpy as np

CLASSES = ("healthy", "imbalance", "misalignment", "bearing", "looseness")
FS = 2048.0
N = 256


@dataclass(frozen=True)
class Batch:
    seed: int
    count: int


def _window(rng, label):
    t = np.arange(N) / FS
    f0 = rng.uniform(18.0, 30.0)                       # running speed, Hz
    ph = lambda: rng.uniform(0, 2 * np.pi)
    x = np.zeros((3, N))
    base = rng.uniform(0.02, 0.05)
    for ax in range(3):
        x[ax] += base * np.sin(2 * np.pi * f0 * t + ph())
        x[ax] += rng.uniform(0.005, 0.015) * np.sin(2 * np.pi * rng.uniform(300, 900) * t + ph())
    if label == 1:
        a = rng.uniform(0.3, 0.8)
        x[0] += a * np.sin(2 * np.pi * f0 * t + ph()); x[1] += a * np.cos(2 * np.pi * f0 * t + ph())
    elif label == 2:
        a = rng.uniform(0.15, 0.4)
        x[2] += a * np.sin(2 * np.pi * 2 * f0 * t + ph()) + 0.6 * a * np.sin(2 * np.pi * f0 * t + ph())
    elif label == 3:
        bpfo = f0 * rng.uniform(3.4, 3.8)
        for k in (6, 7, 8):
            carrier = np.sin(2 * np.pi * k * bpfo * t + ph())
            x[rng.integers(0, 2)] += rng.uniform(0.01, 0.03) * (1 + np.sin(2 * np.pi * f0 * t)) * carrier
    elif label == 4:
        for k in (0.5, 1.5, 2, 3, 4, 5):
            for ax in (0, 1):
                x[ax] += rng.uniform(0.04, 0.1) / k * np.sin(2 * np.pi * k * f0 * t + ph())
    x += rng.normal(0, rng.uniform(0.002, 0.006), size=x.shape)
    return x * rng.uniform(0.8, 1.25)


def make_batch(spec: Batch):
    """(raw windows float64 (count, 3, 256) in g, labels int64 (count,))."""
    rng = np.random.default_rng(spec.seed)
    labels = rng.integers(0, len(CLASSES), size=spec.count)
    return np.stack([_window(rng, int(k)) for k in labels]), labels.astype(np.int64)
