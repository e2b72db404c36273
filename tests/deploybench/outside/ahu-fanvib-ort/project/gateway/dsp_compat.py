"""numpy-only spectral front end for the gateway image (no torch, no project package installed).

Vendored from fanvib.features so the gateway container stays small; keep it in step with it.
"""
import numpy as np

N_FFT = 256
N_BINS = 128
REF_G = 0.001

_HANN = np.hanning(N_FFT)
_GAIN = 2.0 / _HANN.sum()


def axis_spectra(block: np.ndarray) -> np.ndarray:
    """(3, 256) accelerometer block in g -> (3, 128) float32 spectrum for the classifier."""
    centred = block - block.mean(axis=-1, keepdims=True)
    amp = np.abs(np.fft.rfft(centred * _HANN, n=N_FFT, axis=-1))[..., :N_BINS]
    return (amp * _GAIN / REF_G).astype(np.float32)
