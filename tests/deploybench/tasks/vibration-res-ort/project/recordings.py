"""Data of the vibration-res project: synthetic 2-axis vibration recordings from fixed seeds (no
download), 3 machine states: 0 healthy (shaft tone and noise), 1 imbalance (a strong shaft tone
on both axes), 2 bearing fault (periodic impulses ringing down). Shaft period 8 to 16 samples,
noise sigma 0.2. `record(count, samples, seed)` makes (N, 2, samples) recordings of any length.

aipc.toml [project] names:
- example_recording(): one evaluation recording of 128 samples, batch 1: signal (1, 2, 128);
- evaluation_set(): ((signal,), labels) of 400 recordings of 128 samples;
- calibration_set(): 64 training recordings of 128 samples, one input tuple each.
The monitor (monitor.py, `run_inputs`) feeds recordings of other lengths.
"""
from functools import lru_cache

import numpy as np

from framing import as_batch

STATES = ("healthy", "imbalance", "bearing")
EVAL_SAMPLES = 128


def record(count, samples, seed):
    rng = np.random.default_rng(seed)
    states = rng.integers(0, len(STATES), count)
    t = np.arange(samples, dtype=np.float64)[None, :]
    period = rng.uniform(8, 16, (count, 1))
    phase = rng.uniform(0, 2 * np.pi, (count, 1))
    shaft = np.sin(2 * np.pi * t / period + phase)
    gap = rng.uniform(10, 20, (count, 1))
    since = (t + rng.uniform(0, 20, (count, 1))) % gap
    ring = np.exp(-since / 2.0) * np.sin(2 * np.pi * since / 3.0)
    x = rng.normal(0, 0.2, (count, 2, samples))
    gain = np.where(states == 1, 1.5, 0.3)[:, None]
    x[:, 0] += gain * shaft
    x[:, 1] += gain * np.roll(shaft, 2, axis=1)
    bearing = (states == 2)[:, None]
    x[:, 0] += bearing * 1.2 * ring
    x[:, 1] += bearing * 0.8 * ring
    return as_batch(x), states.astype(np.int64)


@lru_cache(maxsize=1)
def _evaluation():
    return record(400, EVAL_SAMPLES, seed=31)


def evaluation_set():
    import torch

    x, y = _evaluation()
    return (x,), torch.from_numpy(y)


def example_recording():
    x, _ = _evaluation()
    return (x[:1].clone(),)


def calibration_set():
    x, _ = record(64, EVAL_SAMPLES, seed=32)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
