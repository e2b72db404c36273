"""Z-axis accelerometer windows (g, 100 Hz, 128 samples) of five wrist gestures, simulated with
fixed seeds: idle (a slow tilt of the arm), one tap, a quick double tap, a slow double tap and
a triple tap. A tap is a short damped ring; wearers tap with different force, and the sensor
noise differs from band to band.

The model takes (batch, 1, 128) float32 windows in g, exactly as returned here."""
import numpy as np
import torch

from .config import DEFAULT, GESTURES

RING = np.exp(-np.arange(12) / 2.5) * np.sin(2 * np.pi * np.arange(12) / 6.0)


def _tap_offsets(gesture: int, rng: np.random.Generator) -> list:
    if gesture == 1:
        return [0]
    if gesture == 2:
        return [0, int(rng.integers(10, 18))]
    if gesture == 3:
        return [0, int(rng.integers(34, 46))]
    if gesture == 4:
        second = int(rng.integers(10, 18))
        return [0, second, second + int(rng.integers(10, 18))]
    return []


def simulate(count: int, seed: int, window: int = DEFAULT.window):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(GESTURES), count)
    noise = rng.uniform(0.02, 0.08, (count, 1))
    x = rng.normal(0.0, 1.0, (count, window)) * noise
    for i, gesture in enumerate(labels):
        offsets = _tap_offsets(int(gesture), rng)
        if not offsets:
            x[i] += rng.uniform(-0.8, 0.8) * np.sin(np.linspace(0, np.pi, window) * rng.uniform(0.5, 1.5))
            continue
        force = rng.uniform(0.6, 2.0)
        start = int(rng.integers(0, window - max(offsets) - len(RING)))
        for off in offsets:
            x[i, start + off:start + off + len(RING)] += force * rng.uniform(0.8, 1.2) * RING
    return torch.from_numpy(x[:, None, :].astype(np.float32)), torch.from_numpy(labels.astype(np.int64))


def training_windows():
    return simulate(3000, 101)


def holdout():
    """Labelled windows from other wearers (aipc.toml eval_data)."""
    x, y = simulate(600, 202)
    return (x,), y


def probe():
    """One window, the shape the wristband feeds (aipc.toml example_inputs)."""
    return (simulate(1, 303)[0],)


def calibration_windows(count: int = 64):
    """Windows recorded for INT8 calibration, one at a time as the band feeds them."""
    x, _ = simulate(count, 404)
    return [(x[i:i + 1],) for i in range(count)]
