"""Synthetic NIR reflectance of single grain kernels as the sorter's spectrometer reads them
(raw 16-bit counts, with the dark/white references of the run). Absorption bands:
water ~1450 nm, starch ~1200/1580 nm, protein ~1510 nm, lipid ~1210/1390 nm."""
import numpy as np

from .config import Spectrometer

SPEC = Spectrometer()
WL = SPEC.wavelengths()


def _band(center, width, depth):
    return depth * np.exp(-0.5 * ((WL - center) / width) ** 2)


def _kernel_reflectance(grade, rng):
    level = rng.uniform(0.35, 0.75)
    slope = rng.normal(0, 0.08)
    a = np.full_like(WL, 0.0)
    a += _band(1200, 40, rng.uniform(0.10, 0.16))       # starch
    a += _band(1450, 45, rng.uniform(0.18, 0.26))       # water
    a += _band(1510, 35, rng.uniform(0.06, 0.10))       # protein
    a += _band(1580, 40, rng.uniform(0.05, 0.08))       # starch 2
    if grade == 1:      # sprouted: starch turned to sugars, more water
        a += _band(1450, 50, rng.uniform(0.05, 0.09)) - _band(1200, 40, rng.uniform(0.03, 0.06))
    elif grade == 2:    # fusarium: protein band shifts/broadens, chitin 1640
        a += _band(1640, 30, rng.uniform(0.04, 0.08)) - _band(1510, 30, rng.uniform(0.02, 0.04))
    elif grade == 3:    # insect bored: hollow kernel, stronger scatter slope, weaker bands
        a *= rng.uniform(0.65, 0.8)
        slope += rng.uniform(0.10, 0.18)
    elif grade == 4:    # foreign seed (oat/rapeseed): lipid bands
        a += _band(1210, 25, rng.uniform(0.05, 0.09)) + _band(1390, 25, rng.uniform(0.04, 0.08))
    x = (WL - WL.mean()) / (WL.max() - WL.min())
    refl = level * np.exp(-a) * (1 + slope * x)
    return np.clip(refl, 0.02, 0.98)


def read_kernels(grades, seed, spec: Spectrometer = SPEC):
    """-> raw counts (N, bands) uint16, dark (bands,), white (bands,)"""
    rng = np.random.default_rng(seed)
    dark = spec.dark_counts + rng.normal(0, 20, spec.bands)
    white = spec.white_counts * (1 + 0.1 * np.sin(np.linspace(0, 3, spec.bands))) + rng.normal(0, 80, spec.bands)
    rows = []
    for g in grades:
        r = _kernel_reflectance(int(g), rng)
        counts = dark + r * (white - dark) + rng.normal(0, 120, spec.bands)
        rows.append(counts)
    raw = np.clip(np.round(np.stack(rows)), 0, 65535).astype(np.uint16)
    return raw, dark.astype(np.float32), white.astype(np.float32)


def make_lot(n, seed, spec: Spectrometer = SPEC):
    rng = np.random.default_rng(seed + 1000)
    grades = rng.integers(0, 5, n)
    raw, dark, white = read_kernels(grades, seed, spec)
    return raw, dark, white, grades.astype(np.int64)
