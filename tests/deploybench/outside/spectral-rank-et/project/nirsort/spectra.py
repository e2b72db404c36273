"""Synthetic NIR reflectance of plastic flakes (fixed seeds, no download).

Each flake crosses the beam during CONFIG["scans"] exposures of CONFIG["bins"] bins. Its
reflectance is a sloped baseline times a brightness factor, with the absorption bands of its
polymer as Gaussian dips (centres jitter by under a bin, widths vary). Every exposure adds sensor
noise, and some exposures carry spikes: a cosmic-ray hit (up) or a dead pixel (down) in one bin.

The network takes float32 reflectance (N, scans, bins).
"""
from functools import lru_cache

import numpy as np
import torch

from .settings import CONFIG

# polymer -> [(band centre in bins, depth range)]
BANDS = {
    "PE": [(19.0, (0.18, 0.30)), (30.0, (0.10, 0.20))],
    "PP": [(18.5, (0.18, 0.30)), (24.0, (0.07, 0.14)), (30.0, (0.10, 0.20))],
    "PET": [(10.0, (0.10, 0.20)), (28.0, (0.12, 0.22)), (40.0, (0.15, 0.25))],
    "PS": [(10.0, (0.10, 0.20)), (27.0, (0.10, 0.18)), (44.5, (0.18, 0.30))],
}


def _flake(polymer, rng, bins):
    axis = np.arange(bins, dtype=np.float64)
    base = rng.uniform(0.55, 0.9) + rng.uniform(-0.2, 0.2) * (axis / (bins - 1) - 0.5)
    for centre, (lo, hi) in BANDS[polymer]:
        c = centre + rng.uniform(-0.8, 0.8)
        base = base - rng.uniform(lo, hi) * np.exp(-0.5 * ((axis - c) / rng.uniform(1.2, 2.2)) ** 2)
    return base * rng.uniform(0.7, 1.1)


def scan_flakes(count, seed, spike_rate=0.6):
    """`count` flakes: float64 reflectance (count, scans, bins) and polymer labels."""
    bins, scans, names = CONFIG["bins"], CONFIG["scans"], CONFIG["polymers"]
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(names), size=count)
    out = np.empty((count, scans, bins))
    for i, lab in enumerate(labels):
        clean = _flake(names[lab], rng, bins)
        for s in range(scans):
            exposure = clean + rng.normal(0, 0.01, bins)
            if rng.random() < spike_rate:
                for b in rng.integers(0, bins, size=rng.integers(1, 4)):
                    exposure[b] += rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 0.9)
            out[i, s] = np.clip(exposure, 0.0, None)
    return out, labels.astype(np.int64)


def as_model_input(reflectance):
    return torch.from_numpy(np.asarray(reflectance, dtype=np.float32))


def training_split(count=4000):
    x, y = scan_flakes(count, seed=1001)
    return as_model_input(x), torch.from_numpy(y)


@lru_cache(maxsize=1)
def _validation():
    x, y = scan_flakes(600, seed=2002)
    return as_model_input(x), torch.from_numpy(y)


def validation_split():
    """((scans,), labels) for 600 held-out flakes."""
    x, y = _validation()
    return (x,), y


def single_flake():
    """One held-out flake, batch 1, as the sorter runs the network."""
    x, _ = _validation()
    return (x[:1].clone(),)


def calibration_flakes(count=64):
    x, _ = scan_flakes(count, seed=3003)
    x = as_model_input(x)
    return [(x[i:i + 1].clone(),) for i in range(count)]
