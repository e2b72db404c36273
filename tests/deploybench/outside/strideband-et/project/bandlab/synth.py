"""Simulated wrist-band recordings (fixed seeds), in g.

A recording is a continuous 3-axis stream at 25 Hz made of activity bouts whose lengths are
whole windows (64 samples); `activity` holds one label per window.
"""
import numpy as np

RATE_HZ = 25.0
WINDOW = 64
ACTIVITIES = ("idle", "typing", "writing", "walk", "run")


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _bout(rng, activity, n):
    t = np.arange(n) / RATE_HZ
    gravity = _unit(rng) * rng.uniform(0.97, 1.03)
    x = np.tile(gravity, (n, 1)) + np.cumsum(rng.normal(0, 0.0015, (n, 3)), 0)
    axis, side = _unit(rng), _unit(rng)
    if activity == 1:      # typing: small, fast wrist taps in bursts
        f, a = rng.uniform(5.5, 9.0), rng.uniform(0.02, 0.06)
        gate = (np.sin(2 * np.pi * rng.uniform(0.3, 0.6) * t + rng.uniform(0, 6.3)) > -0.2)
        x += np.outer(a * np.sin(2 * np.pi * f * t) * gate, axis)
    elif activity == 2:    # writing: slow small strokes, sideways
        f, a = rng.uniform(1.8, 3.5), rng.uniform(0.03, 0.08)
        x += np.outer(a * np.sin(2 * np.pi * f * t), side) + np.outer(0.4 * a * np.sin(4 * np.pi * f * t), axis)
    elif activity == 3:    # walk
        f, a = rng.uniform(1.6, 2.2), rng.uniform(0.25, 0.5)
        x += np.outer(a * np.sin(2 * np.pi * f * t) + 0.3 * a * np.sin(4 * np.pi * f * t + 0.7), axis)
    elif activity == 4:    # run
        f, a = rng.uniform(2.5, 3.2), rng.uniform(0.9, 1.7)
        x += np.outer(a * np.abs(np.sin(np.pi * f * t)) - a * 0.64, axis)
        x += np.outer(0.3 * a * np.sin(2 * np.pi * f * t), side)
    return x + rng.normal(0, 0.012, (n, 3))


def simulate_recording(seed, windows=120, activities=None):
    """(T, 3) float32 stream in g and (T // 64,) int64 window labels; `activities` (names)
    restricts the bouts to those activities."""
    rng = np.random.default_rng(seed)
    pool = [ACTIVITIES.index(a) for a in activities] if activities else list(range(len(ACTIVITIES)))
    parts, labels = [], []
    while len(labels) < windows:
        activity = int(rng.choice(pool))
        k = int(min(rng.integers(3, 9), windows - len(labels)))
        parts.append(_bout(rng, activity, k * WINDOW))
        labels += [activity] * k
    return np.concatenate(parts).astype(np.float32), np.asarray(labels, np.int64)
