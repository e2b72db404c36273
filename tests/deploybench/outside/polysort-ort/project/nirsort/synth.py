"""Synthetic flake captures for the sorting line (there is no public capture to ship with the
repo). Each polymer gets its C-H / C=O overtone bands as Gaussian absorption peaks; every flake
draws its own thickness, band shifts, band strengths, scattering baseline and detector noise,
and the camera model turns that into raw 12-bit counts with its dark / white references.

Used by `make_captures.py` (writes data/*.npz, committed) and by `train.py` (training flakes,
generated on the fly with a fixed seed).
"""
import numpy as np

from .optics import ADC_MAX, N_BANDS, WAVELENGTHS_NM, References, lamp_profile

POLYMERS = ("PET", "HDPE", "LDPE", "PP", "PS", "PVC")

# (centre nm, width nm, strength) per polymer
_BANDS = {
    "PET":  [(1130, 22, 0.55), (1415, 30, 0.30), (1660, 18, 0.85)],
    "HDPE": [(1212, 16, 0.80), (1395, 20, 0.45), (1545, 40, 0.15), (1640, 24, 0.30)],
    "LDPE": [(1212, 18, 0.72), (1395, 22, 0.55), (1545, 40, 0.25), (1640, 26, 0.24)],
    "PP":   [(1195, 18, 0.75), (1390, 24, 0.55), (1630, 30, 0.28)],
    "PS":   [(1145, 18, 0.60), (1420, 28, 0.25), (1680, 16, 0.80)],
    "PVC":  [(1190, 26, 0.42), (1430, 34, 0.35), (1720, 40, 0.30)],
}


def line_references(rng) -> References:
    lamp = lamp_profile() * rng.uniform(0.97, 1.03)
    dark = 180.0 + rng.normal(0.0, 6.0, N_BANDS)
    return References.from_arrays(np.round(dark), np.round(dark + lamp))


def _absorbance(label: int, rng) -> np.ndarray:
    wl = WAVELENGTHS_NM
    a = np.zeros(N_BANDS)
    for centre, width, strength in _BANDS[POLYMERS[label]]:
        c = centre + rng.normal(0.0, 5.0)
        w = width * rng.uniform(0.85, 1.2)
        s = strength * rng.uniform(0.75, 1.25)
        a += s * np.exp(-0.5 * ((wl - c) / w) ** 2)
    thickness = rng.uniform(0.3, 1.0)
    x = (wl - wl.mean()) / np.ptp(wl)
    baseline = rng.uniform(0.02, 0.25) + rng.normal(0.0, 0.08) * x + rng.normal(0.0, 0.05) * x ** 2
    # labels, dirt, paper residue: a broad featureless absorber on some flakes
    dirt = rng.uniform(0.0, 0.25) * np.exp(-0.5 * ((wl - rng.uniform(1000, 1650)) / rng.uniform(80, 200)) ** 2)
    return thickness * a + baseline + dirt


def capture(n: int, seed: int):
    """n flakes of one line session: (raw uint16 (n, bands), labels int64 (n,), References)."""
    rng = np.random.default_rng(seed)
    refs = line_references(rng)
    labels = rng.integers(0, len(POLYMERS), n)
    span = refs.white - refs.dark
    raw = np.empty((n, N_BANDS), np.uint16)
    for i, lab in enumerate(labels):
        refl = 10.0 ** (-_absorbance(int(lab), rng))
        counts = refs.dark + refl * span
        counts = counts + rng.normal(0.0, 1.0, N_BANDS) * np.sqrt(np.maximum(counts, 1.0)) * 0.9
        raw[i] = np.clip(np.round(counts), 0, ADC_MAX).astype(np.uint16)
    return raw, labels.astype(np.int64), refs
