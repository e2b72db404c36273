"""Synthetic power-quality windows: 50 Hz line voltage sampled at 3.2 kHz (64 samples per
cycle), 8 cycles = 512 samples, in per-unit of the nominal peak (230 V rms -> 325.3 V).

Six classes, as in the IEEE 1159 style PQ-disturbance benchmarks: normal, sag, swell,
harmonic distortion, oscillatory transient, notching. Meters differ a lot in front-end
noise (from a clean 0.002 p.u. to a noisy 0.12 p.u.)."""
import numpy as np
import torch

RATE, F_LINE, LENGTH = 3200.0, 50.0, 512
EVENTS = ("normal", "sag", "swell", "harmonics", "transient", "notching")


def _window(event: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(LENGTH) / RATE
    phase = rng.uniform(0, 2 * np.pi)
    f = F_LINE * rng.uniform(0.995, 1.005)
    v = np.sin(2 * np.pi * f * t + phase)
    start = int(rng.integers(64, 256))
    stop = start + int(rng.integers(128, 256))
    if event == 1:
        v[start:stop] *= rng.uniform(0.2, 0.8)
    elif event == 2:
        v[start:stop] *= rng.uniform(1.2, 1.7)
    elif event == 3:
        for k, amp in ((3, rng.uniform(0.08, 0.2)), (5, rng.uniform(0.05, 0.15)), (7, rng.uniform(0.0, 0.08))):
            v += amp * np.sin(2 * np.pi * k * f * t + k * phase)
    elif event == 4:
        n = LENGTH - start
        tau = np.arange(n) / RATE
        v[start:] += rng.uniform(0.3, 0.8) * np.exp(-tau / rng.uniform(0.002, 0.006)) * np.sin(2 * np.pi * rng.uniform(600, 1200) * tau)
    elif event == 5:
        period = RATE / f / 2
        for c in np.arange(start % period, LENGTH, period):
            c = int(c)
            v[c:c + 3] *= rng.uniform(0.1, 0.5)
    return v + rng.normal(0, noise, LENGTH)


def simulate(count: int, seed: int, noise_range=(0.002, 0.12)):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(EVENTS), count)
    noise = np.exp(rng.uniform(np.log(noise_range[0]), np.log(noise_range[1]), count))
    x = np.stack([_window(int(e), s, rng) for e, s in zip(labels, noise)])
    return torch.from_numpy(x[:, None, :].astype(np.float32)), torch.from_numpy(labels.astype(np.int64))


def training_windows():
    return simulate(3000, 31)


def substation_holdout():
    """Labelled windows from another substation's meters (aipc.toml eval_data)."""
    x, y = simulate(600, 32)
    return (x,), y


def quiet_window():
    """One window from a well-shielded meter (aipc.toml example_inputs)."""
    return (simulate(1, 36, noise_range=(0.003, 0.006))[0],)


def commissioning_windows(count: int = 64):
    """Windows logged while commissioning meters, used to calibrate INT8 builds."""
    x, _ = simulate(count, 34)
    return [(x[i:i + 1],) for i in range(count)]
