"""Data of the wave-transformer project: synthetic waveforms (generated from fixed seeds, no
download), 4 classes: sine, square, sawtooth, triangle. Each has a random period (6 to 40
samples), phase and amplitude (0.5 to 1.5) plus Gaussian noise (sigma 0.1), and is cut into
frames of 8 samples: one waveform of T frames is a (T, 8) float32 array.

aipc.toml [project] names:
- example_inputs(): one evaluation waveform of 16 frames, batch 1: frames (1, 16, 8);
- eval_set(): ((frames,), labels) of 400 evaluation waveforms of 16 frames;
- calibration_set(): 64 training waveforms of 16 frames, one input tuple each.
The app streams windows of other lengths (infer.py, `run_inputs`).
"""
from functools import lru_cache

import numpy as np
import torch

FRAME = 8
CLASSES = ("sine", "square", "sawtooth", "triangle")
EVAL_SIZE = 400
CALIB_SIZE = 64
EVAL_FRAMES = 16


def waves(count, frames, seed):
    """`count` waveforms of `frames` frames: (frames (count, frames, 8) float32, labels (count,) int64)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), count)
    t = np.arange(frames * FRAME, dtype=np.float64)
    period = rng.uniform(6, 40, (count, 1))
    phase = rng.uniform(0, 1, (count, 1))
    amp = rng.uniform(0.5, 1.5, (count, 1))
    u = (t / period + phase) % 1.0                      # position in the cycle, 0..1
    shapes = np.stack([np.sin(2 * np.pi * u), np.where(u < 0.5, 1.0, -1.0), 2 * u - 1, 1 - 4 * np.abs(u - 0.5)])
    x = amp * shapes[labels, np.arange(count)] + rng.normal(0, 0.1, (count, t.size))
    return torch.from_numpy(x.reshape(count, frames, FRAME).astype(np.float32)), torch.from_numpy(labels.astype(np.int64))


@lru_cache(maxsize=1)
def _eval():
    return waves(EVAL_SIZE, EVAL_FRAMES, seed=1)


def eval_set():
    x, y = _eval()
    return (x,), y


def example_inputs():
    x, _ = _eval()
    return (x[:1].clone(),)


def calibration_set():
    x, _ = waves(CALIB_SIZE, EVAL_FRAMES, seed=2)
    return [(x[i:i + 1].clone(),) for i in range(CALIB_SIZE)]
