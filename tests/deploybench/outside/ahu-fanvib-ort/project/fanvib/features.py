"""Spectral front end: raw window (3, 256) in g -> per-axis spectrum (3, 128) the classifier reads.

History:
  v0.4  Hann window, single-sided amplitude spectrum in units of REF_G.
  v0.5  log1p compression of that amplitude: the fault signatures span four decades (bearing
        tones at ~1e-2 g beside an imbalance line at ~1 g) and the linear spectrum drowned the
        bearing class. The model of this project is trained on v0.5 features.
"""
from dataclasses import dataclass

import numpy as np

REF_G = 0.001


@dataclass(frozen=True)
class FrontEndConfig:
    n_fft: int = 256
    n_bins: int = 128           # DC .. fs/2 - df; the Nyquist bin is dropped
    ref_g: float = REF_G


class SpectralFrontEnd:
    def __init__(self, cfg: FrontEndConfig = FrontEndConfig()):
        self.cfg = cfg
        self.window = np.hanning(cfg.n_fft)
        self.gain = 2.0 / self.window.sum()

    def amplitude(self, raw: np.ndarray) -> np.ndarray:
        """Single-sided amplitude spectrum in REF_G units: (..., 3, n_bins)."""
        centred = raw - raw.mean(axis=-1, keepdims=True)
        spec = np.abs(np.fft.rfft(centred * self.window, n=self.cfg.n_fft, axis=-1))
        return spec[..., :self.cfg.n_bins] * self.gain / self.cfg.ref_g

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        return np.log1p(self.amplitude(raw)).astype(np.float32)


FRONT_END = SpectralFrontEnd()
