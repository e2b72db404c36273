"""Synthetic 3-phase voltage windows with power-quality events (IEEE 1159 categories).

A window is 10 cycles of 50 Hz sampled at 32 samples per cycle (1.6 kHz), in per-unit of the
nominal phase voltage. Events start and end at random points of the window; every window has
its own frequency deviation, phase angle, noise and background distortion.
"""
import numpy as np

EVENTS = ("normal", "sag", "swell", "interruption", "harmonics", "transient")
PHASES = 3
CYCLES = 10
SPC = 32                          # samples per cycle
SAMPLES = CYCLES * SPC            # 320
FS = 50.0 * SPC                   # 1600 Hz


def _envelope(rng, t):
    """0/1 mask of the event's duration (1.5 to 7 cycles) inside the window."""
    dur = rng.uniform(1.5, 7.0) / 50.0
    start = rng.uniform(0.5 / 50.0, t[-1] - dur)
    return ((t >= start) & (t < start + dur)).astype(np.float64), start, dur


def window(label: int, rng) -> np.ndarray:
    t = np.arange(SAMPLES) / FS
    f = 50.0 + rng.normal(0.0, 0.05)
    theta = rng.uniform(0, 2 * np.pi)
    amp = np.full((PHASES, SAMPLES), rng.uniform(0.95, 1.05))
    shift = np.array([0.0, -2 * np.pi / 3, 2 * np.pi / 3])[:, None]
    wave_arg = 2 * np.pi * f * t[None, :] + theta + shift
    extra = np.zeros((PHASES, SAMPLES))
    # background distortion every feeder has
    for h, level in ((3, 0.015), (5, 0.02), (7, 0.01)):
        extra += rng.uniform(0, level) * np.sin(h * wave_arg + rng.uniform(0, 2 * np.pi))
    name = EVENTS[label]
    if name in ("sag", "swell", "interruption"):
        env, _, _ = _envelope(rng, t)
        hit = np.zeros(PHASES, bool)
        hit[rng.choice(PHASES, rng.integers(1, 4), replace=False)] = True
        if name == "interruption":
            hit[:] = True
            depth = rng.uniform(0.0, 0.08, PHASES)
        elif name == "sag":
            depth = rng.uniform(0.15, 0.8, PHASES)
        else:
            depth = rng.uniform(1.2, 1.8, PHASES)
        for p in range(PHASES):
            if hit[p]:
                amp[p] = amp[p] * (1 - env) + depth[p] * env
    elif name == "harmonics":
        for h in (3, 5, 7, 11):
            extra += rng.uniform(0.04, 0.2) * np.sin(h * wave_arg + rng.uniform(0, 2 * np.pi))
    elif name == "transient":
        # capacitor-switching transient: a decaying ring riding on the wave
        start = rng.uniform(1.0, 8.5) / 50.0
        ring_f = rng.uniform(250.0, 650.0)
        tau = rng.uniform(0.002, 0.008)
        mag = rng.uniform(0.6, 2.6)
        tt = np.clip(t - start, 0.0, None)
        ring = mag * np.exp(-tt / tau) * np.sin(2 * np.pi * ring_f * tt) * (t >= start)
        extra += ring[None, :] * rng.uniform(0.4, 1.0, (PHASES, 1))
    v = amp * np.sin(wave_arg) + extra + rng.normal(0.0, 0.01, (PHASES, SAMPLES))
    return v


def batch(n: int, seed: int):
    """n windows (n, 3, 320) float64 per-unit, labels (n,) int64."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(EVENTS), n)
    return np.stack([window(int(k), rng) for k in labels]), labels.astype(np.int64)
