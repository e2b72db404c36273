"""Synthetic sonar echo profiles (fixed seeds, no download).

A ping is one echo-amplitude profile over 40 range bins, sampled by the receiver's 12-bit ADC:
uint16 counts 0..4095. Three classes:

0 open water - only the surface reverberation near the transducer, decaying with range;
1 hard target - one narrow, strong return (a hull, a rock) somewhere down range;
2 fish school - a broad, patchy cluster of weak returns spread over several bins.

The network was trained on amplitudes in [0, 1]: counts divided by the ADC full scale 4095
(`to_unit_range`). Everything in this module hands the model that form.
"""
import numpy as np
import torch

RANGE_BINS = 40
ADC_BITS = 12
ADC_FULL_SCALE = 2 ** ADC_BITS - 1  # 4095
KINDS = ("open_water", "hard_target", "fish_school")


def _profile(kind, rng):
    r = np.arange(RANGE_BINS, dtype=np.float64)
    gain = rng.uniform(0.5, 1.0)
    amp = rng.uniform(0.12, 0.3) * np.exp(-r / rng.uniform(2.0, 4.0))  # surface reverberation
    amp += rng.uniform(0.02, 0.06)  # ambient noise floor
    if kind == 1:
        at = rng.uniform(8, RANGE_BINS - 3)
        amp += rng.uniform(0.45, 0.85) * np.exp(-((r - at) ** 2) / rng.uniform(0.4, 1.2))
    elif kind == 2:
        centre, spread = rng.uniform(12, RANGE_BINS - 8), rng.uniform(3.0, 6.0)
        for _ in range(rng.integers(4, 8)):
            at = centre + rng.normal(0, spread / 2)
            amp += rng.uniform(0.08, 0.22) * np.exp(-((r - at) ** 2) / rng.uniform(0.8, 2.5))
    amp = gain * amp + np.abs(rng.normal(0, 0.025, RANGE_BINS))
    return np.clip(np.rint(amp * ADC_FULL_SCALE), 0, ADC_FULL_SCALE).astype(np.uint16)


def record_pings(count, seed):
    """`count` pings as the ADC delivers them: uint16 (count, 40) counts, and int64 labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(KINDS), size=count)
    pings = np.stack([_profile(int(k), rng) for k in labels])
    return pings, labels.astype(np.int64)


def to_unit_range(pings):
    """uint16 counts (N, 40) -> the model's float32 (N, 1, 40), amplitudes in [0, 1]."""
    x = pings.astype(np.float32) / np.float32(ADC_FULL_SCALE)
    return torch.from_numpy(x[:, None, :].copy())


def training_set():
    pings, labels = record_pings(3000, seed=101)
    return to_unit_range(pings), torch.from_numpy(labels)


def evaluation_pings():
    """The held-out recording, raw: what the receiver saw (uint16 counts) and the true classes."""
    return record_pings(600, seed=202)


def evaluation_set():
    pings, labels = evaluation_pings()
    return (to_unit_range(pings),), torch.from_numpy(labels)


def example_ping():
    (x,), _ = evaluation_set()
    return (x[:1].clone(),)


def calibration_pings(count=96):
    pings, _ = record_pings(count, seed=303)
    x = to_unit_range(pings)
    return [(x[i:i + 1].clone(),) for i in range(count)]
