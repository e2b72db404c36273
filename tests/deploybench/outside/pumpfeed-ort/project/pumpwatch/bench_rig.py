"""Synthetic recordings of the pump test rig (deterministic for a seed).

Five conditions, one per class: the running speed (about 48 Hz) and the load vary from record
to record; each condition leaves its own trace in the vibration and the motor current.
"""
import numpy as np

from pumpwatch.recordfile import SENSOR_HEAD

CONDITIONS = ("healthy", "imbalance", "misalignment", "bearing_wear", "cavitation")
FS, N = 1000, 128


def _to_counts(phys):
    counts = np.empty_like(phys)
    for c, spec in enumerate(SENSOR_HEAD):
        counts[:, c] = phys[:, c] / spec.units_per_count + spec.offset_counts
    return np.clip(np.round(counts), -32768, 32767).astype(np.int16)


def record(rng, cond):
    t = np.arange(N) / FS
    f0 = rng.uniform(45.0, 49.5)                 # shaft speed, Hz
    ph = rng.uniform(0, 2 * np.pi, 6)
    load = rng.uniform(0.6, 1.0)
    x = 0.04 * np.sin(2 * np.pi * f0 * t + ph[0]) + rng.normal(0, 0.04, N)
    y = 0.04 * np.cos(2 * np.pi * f0 * t + ph[0]) + rng.normal(0, 0.04, N)
    z = 1.0 + 0.02 * np.sin(2 * np.pi * f0 * t + ph[1]) + rng.normal(0, 0.04, N)   # axial, gravity on it
    amp = 11.0 * load * np.ones(N)
    if cond == 1:    # imbalance: strong 1x, radial, in quadrature
        a = rng.uniform(0.03, 0.15)
        x += a * np.sin(2 * np.pi * f0 * t + ph[2])
        y += a * np.cos(2 * np.pi * f0 * t + ph[2])
    elif cond == 2:  # misalignment: 2x, axial and radial
        a = rng.uniform(0.03, 0.12)
        z += a * np.sin(2 * np.pi * 2 * f0 * t + ph[3])
        x += 0.5 * a * np.sin(2 * np.pi * 2 * f0 * t + ph[4])
    elif cond == 3:  # bearing wear: ringing impacts at the outer-race rate (~3.6x)
        rate = 3.6 * f0
        start = rng.uniform(0, 1 / rate)
        for ti in np.arange(start, N / FS, 1 / rate):
            k = t >= ti
            ring = rng.uniform(0.05, 0.2) * np.exp(-(t[k] - ti) * 180) * np.sin(2 * np.pi * 310 * (t[k] - ti))
            x[k] += ring
            y[k] += 0.6 * ring
    elif cond == 4:  # cavitation: broadband vibration, unsteady load on the motor
        x += rng.normal(0, 0.04, N)
        y += rng.normal(0, 0.04, N)
        z += rng.normal(0, 0.03, N)
        amp *= 1 + 0.15 * np.convolve(rng.normal(0, 1, N), np.ones(9) / 3, mode="same")
    i = amp * np.sin(2 * np.pi * 50.0 * t + ph[5]) + rng.normal(0, 0.15, N)
    return _to_counts(np.stack([x, y, z, i], 1))


def session(seed, count):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CONDITIONS), count)
    return [record(rng, int(c)) for c in labels], labels.astype(np.int64)
