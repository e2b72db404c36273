"""Simulated field measurements: what the spectrometer reads over each ground-cover class.

A reading is a non-negative mix of a few library endmembers (the cover's typical composition,
varying plot to plot), times the illumination (sun angle, cloud), plus sensor noise.
"""
from dataclasses import dataclass

import numpy as np

from .library import ENDMEMBERS

COVERS = ("healthy_crop", "drought_stressed_crop", "stubble_field", "tilled_soil",
          "irrigation_pond", "farm_track", "mulched_bed")

_M = {name: i for i, name in enumerate(ENDMEMBERS)}

# Typical composition of each cover (fractions of the footprint; the rest is the same noise).
_COMPOSITION = {
    "healthy_crop": {"green_canopy": 0.75, "loam": 0.20, "senescent_canopy": 0.05},
    "drought_stressed_crop": {"senescent_canopy": 0.55, "green_canopy": 0.20, "loam": 0.25},
    "stubble_field": {"dry_straw": 0.65, "loam": 0.30, "senescent_canopy": 0.05},
    "tilled_soil": {"loam": 0.70, "clay": 0.25, "dry_straw": 0.05},
    "irrigation_pond": {"open_water": 0.85, "green_canopy": 0.10, "clay": 0.05},
    "farm_track": {"sand": 0.45, "asphalt": 0.25, "concrete": 0.20, "loam": 0.10},
    "mulched_bed": {"black_mulch_film": 0.70, "green_canopy": 0.20, "loam": 0.10},
}


@dataclass
class Readings:
    reflectance: np.ndarray  # (n, BANDS) float32
    cover: np.ndarray        # (n,) int64 index into COVERS


def simulate(library, n, seed, concentration=20.0, noise=0.006):
    rng = np.random.default_rng(seed)
    cover = rng.integers(0, len(COVERS), size=n)
    mean = np.zeros((len(COVERS), library.shape[1]))
    for c, name in enumerate(COVERS):
        for em, frac in _COMPOSITION[name].items():
            mean[c, _M[em]] = frac
    mean += 0.005
    mean /= mean.sum(1, keepdims=True)
    abund = np.stack([rng.dirichlet(concentration * mean[c]) for c in cover])
    illum = rng.uniform(0.75, 1.15, size=(n, 1))
    refl = illum * abund @ library.T + rng.normal(0.0, noise, size=(n, library.shape[0]))
    return Readings(refl.astype(np.float32), cover.astype(np.int64))
