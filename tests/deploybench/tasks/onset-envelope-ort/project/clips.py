"""Data of the onset-envelope project: synthetic mono clips generated from fixed seeds (no
download). One clip is 96 samples, (1, 96) float32, of a tone (random period 5 to 12 samples)
shaped by one of 4 amplitude envelopes: 0 pluck (sharp attack, exponential decay), 1 swell
(slow linear rise), 2 steady (constant), 3 double (two decaying hits). Peak amplitude 0.5 to
1.5, Gaussian noise sigma 0.05.

aipc.toml [project] names:
- first_clip(): one evaluation clip, batch 1: clip (1, 1, 96);
- test_clips(): ((clip,), labels) of 400 evaluation clips;
- calibration_clips(): 64 training clips, one input tuple each.
"""
from functools import lru_cache

import numpy as np
import torch

LENGTH = 96
KINDS = ("pluck", "swell", "steady", "double")


def render(count, seed):
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, len(KINDS), count)
    t = np.arange(LENGTH, dtype=np.float64)
    tone = np.sin(2 * np.pi * t / rng.uniform(5, 12, (count, 1)) + rng.uniform(0, 2 * np.pi, (count, 1)))
    onset = rng.integers(0, 24, (count, 1))
    since = np.clip(t - onset, 0, None)
    started = (t >= onset).astype(np.float64)
    decay = rng.uniform(8, 20, (count, 1))
    envs = np.stack([
        started * np.exp(-since / decay),
        started * np.clip(since / (LENGTH - onset), 0, 1),
        started * 0.6,
        started * (np.exp(-since / decay) + (since >= 36) * np.exp(-np.clip(since - 36, 0, None) / decay)) * 0.7,
    ])
    amp = rng.uniform(0.5, 1.5, (count, 1))
    x = amp * envs[kinds, np.arange(count)] * tone + rng.normal(0, 0.05, (count, LENGTH))
    return torch.from_numpy(x[:, None, :].astype(np.float32)), torch.from_numpy(kinds.astype(np.int64))


@lru_cache(maxsize=1)
def _test():
    return render(400, seed=21)


def test_clips():
    x, y = _test()
    return (x,), y


def first_clip():
    x, _ = _test()
    return (x[:1].clone(),)


def calibration_clips():
    x, _ = render(64, seed=22)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
