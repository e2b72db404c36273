"""Synthetic diffuse-reflectance spectra of plastic flakes on the belt, and the raw 16-bit counts
the scanners record (dark offset + reflectance x (white - dark) per band, plus read noise)."""
import numpy as np

from .bands import ABSORPTION, BANDS, POLYMERS, WAVELENGTH_NM


def reflectance(n, seed):
    """(reflectance float64 (n, BANDS) in 0..1, labels int64 (n,)), classes balanced."""
    r = np.random.default_rng(seed)
    lam = WAVELENGTH_NM
    x = (lam - lam.mean()) / (lam.max() - lam.min())
    labels = np.arange(n) % len(POLYMERS)
    r.shuffle(labels)
    out = np.zeros((n, BANDS))
    for i, y in enumerate(labels):
        thickness = r.uniform(0.5, 1.6)
        shift = r.normal(0, 6)
        absorb = np.zeros(BANDS)
        for c, w, d in ABSORPTION[POLYMERS[y]]:
            absorb += d * r.uniform(0.8, 1.2) * np.exp(-0.5 * ((lam - c - shift) / (w * r.uniform(0.9, 1.1))) ** 2)
        base = r.uniform(0.35, 0.85) * (1 + r.uniform(-0.25, 0.25) * x + r.uniform(-0.15, 0.15) * x ** 2)
        dye = 1.0 - r.uniform(0.0, 0.35) * np.exp(-0.5 * ((lam - r.uniform(1000, 1400)) / 250) ** 2)
        spec = base * dye * np.exp(-thickness * absorb)
        out[i] = np.clip(spec + r.normal(0, 0.006, BANDS), 0.005, 1.0)
    return out, labels.astype(np.int64)


def instrument(seed, dark_level, white_level):
    """(dark, white) reference counts per band of one scanner."""
    r = np.random.default_rng(seed)
    lam = WAVELENGTH_NM
    lamp = np.exp(-0.5 * ((lam - 1650) / 700) ** 2)          # halogen x InGaAs response
    dark = dark_level * (1 + 0.05 * r.standard_normal(BANDS))
    white = dark + white_level * (0.35 + 0.65 * lamp) * (1 + 0.02 * r.standard_normal(BANDS))
    return dark.astype(np.float32), white.astype(np.float32)


def to_counts(refl, dark, white, seed):
    r = np.random.default_rng(seed)
    counts = dark + refl * (white - dark) + r.normal(0, 12, refl.shape)
    return np.clip(np.round(counts), 0, 65535).astype(np.uint16)
