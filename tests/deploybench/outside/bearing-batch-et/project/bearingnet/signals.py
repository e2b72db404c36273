"""Synthetic two-axis accelerometer windows from a motor's drive-end bearing (fixed seeds).

The sensor board samples a radial (x) and an axial (y) accelerometer; one window is 64 samples
per axis, delivered as int16 counts (1 count = 1/2048 g, +-16 g range). Four conditions:

0 healthy       - shaft-rate vibration and broadband noise only
1 outer race    - evenly spaced, equally strong impacts (a fixed defect passes every ball)
2 inner race    - closer-spaced impacts whose strength swings with the shaft's rotation
3 rolling element - widely spaced impacts of alternating polarity (a damaged ball spins)

The model takes float32 (N, 2, 64) in g with each axis's per-window mean removed
(`to_model_input`); the window-level data sets here all use that form.
"""
import numpy as np
import torch

AXES, WINDOW = 2, 64
COUNTS_PER_G = 2048.0
CONDITIONS = ("healthy", "outer_race", "inner_race", "rolling_element")
AXIS_COUPLING = np.array([1.0, 0.55])  # the axial sensor sees the impacts weaker


def _impacts(t, period, phase, ring, rng):
    pulses = np.zeros_like(t)
    for start in np.arange(phase, len(t), period):
        dt = t - start
        on = dt >= 0
        pulses[on] += np.exp(-dt[on] / ring) * np.cos(2.6 * dt[on])
    return pulses


def _window(cond, rng):
    t = np.arange(WINDOW, dtype=np.float64)
    shaft = rng.uniform(0.15, 0.35) * np.sin(2 * np.pi * t / rng.uniform(40, 70) + rng.uniform(0, 2 * np.pi))
    base = shaft[None, :] * np.array([[1.0], [0.7]])
    sig = np.zeros((AXES, WINDOW))
    if cond == 1:
        sig += _impacts(t, rng.uniform(10.5, 13.5), rng.uniform(0, 8), rng.uniform(1.5, 2.5), rng) * rng.uniform(0.9, 1.5)
    elif cond == 2:
        p = _impacts(t, rng.uniform(6.0, 8.0), rng.uniform(0, 5), rng.uniform(1.0, 1.8), rng)
        mod = 0.6 + 0.4 * np.sin(2 * np.pi * t / rng.uniform(30, 45) + rng.uniform(0, 2 * np.pi))
        sig += p * mod * rng.uniform(0.8, 1.4)
    elif cond == 3:
        period = rng.uniform(16, 21)
        p = np.zeros(WINDOW)
        for k, start in enumerate(np.arange(rng.uniform(0, 10), WINDOW, period)):
            dt = t - start
            on = dt >= 0
            p[on] += (-1) ** k * np.exp(-dt[on] / 2.5) * np.cos(1.4 * dt[on])
        sig += p * rng.uniform(0.9, 1.6)
    sig = sig * AXIS_COUPLING[:, None] + base + rng.normal(0, rng.uniform(0.08, 0.16), (AXES, WINDOW))
    sig += rng.normal(0, 0.3, (AXES, 1))  # sensor DC offset (gravity, mounting)
    return np.clip(np.rint(sig * COUNTS_PER_G), -32768, 32767).astype(np.int16)


def sensor_windows(count, seed):
    """`count` windows as the sensor board delivers them: int16 (count, 2, 64), and int64 labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CONDITIONS), size=count)
    return np.stack([_window(int(c), rng) for c in labels]), labels.astype(np.int64)


def to_model_input(counts):
    """int16 counts (..., 2, 64) -> float32 in g, each axis's mean over the window removed."""
    g = np.asarray(counts, dtype=np.float32) / np.float32(COUNTS_PER_G)
    return g - g.mean(axis=-1, keepdims=True)


def training_windows():
    w, y = sensor_windows(4000, seed=7)
    return torch.from_numpy(to_model_input(w)), torch.from_numpy(y)


def held_out_windows():
    """The held-out recording as delivered (int16 counts) with its labels."""
    return sensor_windows(800, seed=8)


def eval_windows():
    w, y = held_out_windows()
    return (torch.from_numpy(to_model_input(w)),), torch.from_numpy(y)


def one_window():
    (x,), _ = eval_windows()
    return (x[:1].clone(),)


def calibration_windows(count=64):
    w, _ = sensor_windows(count, seed=9)
    x = torch.from_numpy(to_model_input(w))
    return [(x[i:i + 1].clone(),) for i in range(count)]
