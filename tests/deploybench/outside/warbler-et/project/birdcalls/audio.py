"""Synthetic bird calls, 8 kHz int16 PCM clips of 4224 samples (0.53 s), as the recorder's
microphone delivers them. Six call types; pitch, timing, loudness and the wind/background
noise vary from clip to clip. Fixed seeds, no download."""
import numpy as np

RATE = 8000
CLIP = 4224
CALLS = ("upsweep", "downsweep", "trill", "two_note", "whistle", "buzz")


def _tone(freq_track: np.ndarray) -> np.ndarray:
    return np.sin(2 * np.pi * np.cumsum(freq_track) / RATE)


def _envelope(n: int, attack: int = 80) -> np.ndarray:
    env = np.ones(n)
    a = min(attack, n // 2)
    env[:a] = np.linspace(0, 1, a)
    env[-a:] = np.linspace(1, 0, a)
    return env


def _call(kind: int, rng: np.random.Generator) -> np.ndarray:
    shift = rng.uniform(0.9, 1.1)
    n = int(rng.integers(1800, 3000))
    if kind == 0:
        sig = _tone(np.linspace(2000, 3500, n) * shift)
    elif kind == 1:
        sig = _tone(np.linspace(3500, 2000, n) * shift)
    elif kind == 2:
        f = 3000 * shift
        gate = (np.arange(n) // int(rng.integers(140, 220))) % 2 == 0
        sig = _tone(np.full(n, f)) * gate
    elif kind == 3:
        half = n // 2
        sig = np.concatenate([_tone(np.full(half, 2200 * shift)), _tone(np.full(n - half, 3200 * shift))])
    elif kind == 4:
        t = np.arange(n) / RATE
        sig = _tone(2800 * shift + 60 * np.sin(2 * np.pi * rng.uniform(6, 10) * t))
    else:
        spec = np.fft.rfft(rng.normal(size=n))
        freqs = np.fft.rfftfreq(n, 1 / RATE)
        spec[(freqs < 1500 * shift) | (freqs > 3000 * shift)] = 0
        sig = np.fft.irfft(spec, n)
        sig /= np.abs(sig).max() + 1e-9
    return sig * _envelope(n)


def record(count: int, seed: int):
    """(count, CLIP) int16 clips and their call labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CALLS), count)
    clips = np.zeros((count, CLIP))
    for i, kind in enumerate(labels):
        call = _call(int(kind), rng)
        start = int(rng.integers(0, CLIP - len(call)))
        clips[i, start:start + len(call)] += call * rng.uniform(0.2, 0.6)
        # wind: low-frequency rumble, and broadband hiss
        rumble = np.convolve(rng.normal(size=CLIP + 63), np.ones(64) / 64, mode="valid")
        clips[i] += rumble * rng.uniform(0.5, 3.0) + rng.normal(0, rng.uniform(0.005, 0.04), CLIP)
    pcm = np.clip(np.rint(clips * 20000), -32768, 32767).astype(np.int16)
    return pcm, labels.astype(np.int64)
