"""Log-mel frontend shared by training and the recorder app: int16 PCM clip -> (1, 16, 32)
float32 log-mel patch (16 mel bands from 300 Hz to 4 kHz, 32 frames of 256 samples, hop 128),
standardised per clip."""
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .audio import RATE


def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10.0 ** (np.asarray(m) / 2595.0) - 1.0)


@dataclass(frozen=True)
class LogMelFrontend:
    n_fft: int = 256
    hop: int = 128
    bands: int = 16
    frames: int = 32
    f_min: float = 300.0
    f_max: float = 4000.0

    @cached_property
    def filterbank(self) -> np.ndarray:
        edges = _mel_to_hz(np.linspace(_hz_to_mel(self.f_min), _hz_to_mel(self.f_max), self.bands + 2))
        bins = np.fft.rfftfreq(self.n_fft, 1.0 / RATE)
        fb = np.zeros((self.bands, len(bins)))
        for b in range(self.bands):
            lo, mid, hi = edges[b:b + 3]
            fb[b] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
        return fb

    @cached_property
    def window(self) -> np.ndarray:
        return np.hanning(self.n_fft)

    def __call__(self, pcm: np.ndarray) -> np.ndarray:
        x = pcm.astype(np.float64) / 32768.0
        idx = np.arange(self.frames)[:, None] * self.hop + np.arange(self.n_fft)[None, :]
        power = np.abs(np.fft.rfft(x[idx] * self.window, axis=1)) ** 2
        logmel = np.log(self.filterbank @ power.T + 1e-8)
        logmel = (logmel - logmel.mean()) / (logmel.std() + 1e-5)
        return logmel[None].astype(np.float32)


FRONTEND = LogMelFrontend()
