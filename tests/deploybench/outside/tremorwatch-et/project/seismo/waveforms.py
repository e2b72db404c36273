"""Synthetic 3-component geophone windows (velocity, um/s) for the four event classes.

ambient       microseism + wind / cultural noise, 0.3..4 um/s
local_quake   P onset (vertical, 6-14 Hz) then a larger S phase (horizontal, 2-6 Hz), coda decay
quarry_blast  impulsive onset, dominant low-frequency surface wave (Rg, 1-3 Hz) on Z, short
road_traffic  emergent narrow-band 12-25 Hz wave train, rises and falls over seconds
Events are spread over three decades of peak velocity (4..2000 um/s), so a good part of them
is strong motion.
"""
import numpy as np

from .config import EVENT_CLASSES, StationConfig


def _bandnoise(r, n, fs, lo, hi):
    spec = np.fft.rfft(r.standard_normal(n))
    f = np.fft.rfftfreq(n, 1.0 / fs)
    spec[(f < lo) | (f > hi)] = 0
    x = np.fft.irfft(spec, n)
    return x / (np.abs(x).max() + 1e-9)


def _envelope(t, onset, rise, decay):
    e = np.zeros_like(t)
    on = t >= onset
    tt = t[on] - onset
    e[on] = (1 - np.exp(-tt / rise)) * np.exp(-tt / decay)
    return e / (e.max() + 1e-9)


def _ambient(r, t, fs):
    n = len(t)
    x = np.stack([_bandnoise(r, n, fs, 0.2, 1.0) * r.uniform(0.5, 1.0)
                  + _bandnoise(r, n, fs, 1, 40) * r.uniform(0.2, 0.8) for _ in range(3)])
    return x * r.uniform(0.3, 4.0) / np.abs(x).max()


def _quake(r, t, fs):
    n = len(t)
    tp = r.uniform(0.3, 1.2)
    ts = tp + r.uniform(0.5, 1.8)
    p = _bandnoise(r, n, fs, 6, 14) * _envelope(t, tp, 0.03, r.uniform(0.3, 0.8))
    s = _bandnoise(r, n, fs, 2, 6) * _envelope(t, ts, 0.08, r.uniform(0.8, 2.0))
    z = 1.0 * p + 0.35 * s * _bandnoise(r, n, fs, 0.1, 1)[0:1].clip(0.5, 1)
    ns = [0.25 * p * r.uniform(0.5, 1) + s * r.uniform(0.7, 1.3) for _ in range(2)]
    return np.stack([z, *ns])


def _blast(r, t, fs):
    n = len(t)
    t0 = r.uniform(0.3, 1.5)
    onset = _bandnoise(r, n, fs, 8, 30) * _envelope(t, t0, 0.01, 0.15)
    rg = np.sin(2 * np.pi * r.uniform(1.0, 3.0) * (t - t0)) * _envelope(t, t0 + r.uniform(0.2, 0.6), 0.15, r.uniform(0.6, 1.2))
    z = 0.6 * onset + 1.0 * rg
    ns = [0.3 * onset * r.uniform(0.5, 1) + 0.4 * rg * r.uniform(0.3, 1.0) for _ in range(2)]
    return np.stack([z, *ns])


def _traffic(r, t, fs):
    n = len(t)
    tc = r.uniform(1.0, 3.0)
    width = r.uniform(0.6, 1.5)
    env = np.exp(-0.5 * ((t - tc) / width) ** 2)
    f0 = r.uniform(12, 25)
    comps = []
    for _ in range(3):
        tone = np.sin(2 * np.pi * f0 * t + r.uniform(0, 6.3)) + 0.5 * np.sin(2 * np.pi * 2 * f0 * t + r.uniform(0, 6.3))
        comps.append((tone + 0.4 * _bandnoise(r, n, fs, 8, 40)) * env * r.uniform(0.6, 1.2))
    return np.stack(comps)


_MAKERS = {"ambient": _ambient, "local_quake": _quake, "quarry_blast": _blast, "road_traffic": _traffic}


def synth_windows(n, seed, station: StationConfig = StationConfig()):
    """(velocity float64 (n, 3, samples) in um/s, labels int64 (n,)), classes balanced."""
    r = np.random.default_rng(seed)
    fs = station.sample_rate_hz
    t = np.arange(station.window_samples) / fs
    out = np.zeros((n, 3, len(t)))
    labels = np.arange(n) % len(EVENT_CLASSES)
    r.shuffle(labels)
    for i, y in enumerate(labels):
        name = EVENT_CLASSES[y]
        x = _MAKERS[name](r, t, fs)
        if name != "ambient":
            x = x / np.abs(x).max() * 10 ** r.uniform(np.log10(4.0), np.log10(2000.0))
            x = x + _ambient(r, t, fs)
        out[i] = x
    return out, labels.astype(np.int64)
