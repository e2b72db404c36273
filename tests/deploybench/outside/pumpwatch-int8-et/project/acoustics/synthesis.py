"""Synthetic pump-housing recordings. Every pump hums at its motor/vane tone (300-700 Hz) with
a second harmonic; the fault signatures are faint, 35-45 dB below the hum, which is what makes
them hard to hear: a bearing-wear whine (2.4-3.4 kHz), cavitation hiss (1.5-3 kHz band noise),
impeller rub at half the vane tone. Stored as the codec delivers it: int16 PCM."""
import numpy as np

from .spec import SignalSpec

SIG = SignalSpec()


def _band_noise(rng, n, lo, hi, fs):
    spec = np.fft.rfft(rng.normal(0, 1, n))
    f = np.fft.rfftfreq(n, 1 / fs)
    spec[(f < lo) | (f > hi)] = 0
    x = np.fft.irfft(spec, n)
    return x / x.std()


def clip(state, rng, n=SIG.clip_samples, fs=SIG.sample_rate):
    t = np.arange(n) / fs
    f0 = rng.uniform(300, 700)
    a0 = rng.uniform(0.3, 0.8)
    x = a0 * np.sin(2 * np.pi * f0 * t + rng.uniform(0, 6.3))
    x += a0 * rng.uniform(0.05, 0.15) * np.sin(2 * np.pi * 2 * f0 * t + rng.uniform(0, 6.3))
    x += rng.normal(0, 3e-4, n)
    faint = a0 * rng.uniform(0.008, 0.016)          # -42 .. -36 dB below the hum
    if state == 1:
        fb = rng.uniform(2400, 3400)
        x += faint * (1 + 0.3 * np.sin(2 * np.pi * rng.uniform(8, 20) * t)) * np.sin(2 * np.pi * fb * t)
    elif state == 2:
        x += faint * 0.7 * _band_noise(rng, n, 1500, 3000, fs)
    elif state == 3:
        x += faint * np.sin(2 * np.pi * 0.5 * f0 * t + rng.uniform(0, 6.3))
    return np.clip(np.round(x * SIG.pcm_full_scale), -32768, 32767).astype(np.int16)


def generate(n, seed):
    rng = np.random.default_rng(seed)
    states = rng.integers(0, 4, n)
    return np.stack([clip(s, rng) for s in states]), states.astype(np.int64)
