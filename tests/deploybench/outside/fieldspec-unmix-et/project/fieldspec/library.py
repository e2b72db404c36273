"""The endmember library: reference reflectance spectra measured in the lab.

The library file (data/endmembers.npz) is what ships with the instrument; `synthesize_library`
is how this repository's copy was made (smooth parametric curves standing in for the lab's
measurements), so the file can be rebuilt bit for bit.
"""
import numpy as np

BANDS = 36
WAVELENGTHS_NM = np.linspace(420.0, 980.0, BANDS)

ENDMEMBERS = (
    "green_canopy", "senescent_canopy", "dry_straw", "loam", "sand", "clay",
    "open_water", "asphalt", "concrete", "black_mulch_film",
)


def _sig(x, c, w):
    return 1.0 / (1.0 + np.exp(-(x - c) / w))


def _bump(x, c, w):
    return np.exp(-0.5 * ((x - c) / w) ** 2)


def synthesize_library():
    w = WAVELENGTHS_NM
    spectra = {
        # chlorophyll: green peak, red well, strong red edge at ~715 nm, NIR plateau
        "green_canopy": 0.04 + 0.06 * _bump(w, 550, 30) + 0.42 * _sig(w, 715, 14),
        # stressed leaves: weak red well, red edge shifted blue and lower plateau
        "senescent_canopy": 0.08 + 0.10 * _sig(w, 560, 40) + 0.22 * _sig(w, 700, 20),
        "dry_straw": 0.12 + 0.30 * _sig(w, 600, 80) - 0.03 * _bump(w, 970, 25),
        "loam": 0.06 + 0.18 * (w - 420) / 560,
        "sand": 0.20 + 0.22 * _sig(w, 520, 60),
        "clay": 0.14 + 0.10 * (w - 420) / 560 + 0.06 * _bump(w, 880, 60),
        "open_water": 0.08 * np.exp(-(w - 420) / 120) + 0.01,
        "asphalt": 0.06 + 0.02 * (w - 420) / 560,
        "concrete": 0.30 + 0.06 * _sig(w, 500, 40),
        "black_mulch_film": 0.03 + 0.015 * _bump(w, 720, 120),
    }
    return np.stack([spectra[k] for k in ENDMEMBERS], axis=1).astype(np.float32)  # (BANDS, M)
