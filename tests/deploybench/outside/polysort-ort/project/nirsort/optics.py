"""Optics of the line-scan NIR camera: wavelength grid, lamp/detector references, and the
conversion from raw 12-bit detector counts to the SNV absorbance the classifier reads.

Raw counts are what the camera's frame grabber hands over (uint16, one row per segmented
flake); the dark and white references are recorded by the line at start-up (shutter closed /
PTFE tile) and stored with every capture.
"""
from dataclasses import dataclass

import numpy as np

N_BANDS = 256
WAVELENGTHS_NM = np.linspace(950.0, 1700.0, N_BANDS)
ADC_MAX = 4095


def lamp_profile() -> np.ndarray:
    """Halogen lamp x InGaAs responsivity, as counts of the white tile (dark removed)."""
    wl = WAVELENGTHS_NM
    shape = np.exp(-0.5 * ((wl - 1300.0) / 420.0) ** 2)
    return 800.0 + 2800.0 * shape


@dataclass(frozen=True)
class References:
    dark: np.ndarray   # (N_BANDS,) counts with the shutter closed
    white: np.ndarray  # (N_BANDS,) counts on the PTFE reference tile

    @classmethod
    def from_arrays(cls, dark, white):
        return cls(np.asarray(dark, np.float64), np.asarray(white, np.float64))


def counts_to_absorbance(raw: np.ndarray, refs: References) -> np.ndarray:
    """Raw counts (N, bands) -> pseudo-absorbance -log10(R)."""
    span = np.maximum(refs.white - refs.dark, 1.0)
    refl = (raw.astype(np.float64) - refs.dark) / span
    return -np.log10(np.clip(refl, 1e-3, 2.0))


def snv(absorbance: np.ndarray) -> np.ndarray:
    """Standard normal variate, per spectrum: removes the thickness / scatter offset and gain."""
    mu = absorbance.mean(axis=-1, keepdims=True)
    sd = absorbance.std(axis=-1, keepdims=True)
    return ((absorbance - mu) / np.maximum(sd, 1e-6)).astype(np.float32)


def prepare(raw: np.ndarray, refs: References) -> np.ndarray:
    """The full preprocessing of the sorter: counts -> SNV absorbance, float32 (N, bands)."""
    return snv(counts_to_absorbance(raw, refs))
