"""Motion simulator used to produce the training set and the recorded capture files.

Produces windows in physical units: accel in g (T, 3), gyro in dps (T, 3).
"""
import numpy as np

from imu.spec import ACTIVITIES, SPEC


def _orientation(rng):
    v = rng.normal(size=3) + np.array([0.0, 0.0, 2.5])
    return v / np.linalg.norm(v)


def simulate(rng, label, spec=SPEC):
    t = np.arange(spec.samples) / spec.rate_hz
    g = _orientation(rng)
    acc = np.tile(g, (spec.samples, 1))
    gyr = np.zeros((spec.samples, 3))
    name = ACTIVITIES[label]
    phase = rng.uniform(0, 2 * np.pi, size=3)
    if name == "walk":
        f = rng.uniform(1.6, 2.1)
        a = rng.uniform(0.2, 0.35)
        acc += a * np.sin(2 * np.pi * f * t[:, None] + phase)
        gyr += rng.uniform(30, 60) * np.sin(2 * np.pi * f / 2 * t[:, None] + phase)
    elif name == "run":
        f = rng.uniform(2.6, 3.2)
        a = rng.uniform(0.7, 1.1)
        acc += a * np.sin(2 * np.pi * f * t[:, None] + phase)
        gyr += rng.uniform(80, 140) * np.sin(2 * np.pi * f / 2 * t[:, None] + phase)
    elif name == "stairs":
        f = rng.uniform(1.2, 1.6)
        a = rng.uniform(0.25, 0.4)
        acc += a * np.sin(2 * np.pi * f * t[:, None] + phase)
        acc[:, 2] += 0.25 * np.sign(np.sin(2 * np.pi * f * t + phase[0]))
        gyr += rng.uniform(30, 60) * np.sin(2 * np.pi * f * t[:, None] + phase)
    elif name == "fall":
        k = rng.integers(30, 90)
        w = rng.integers(4, 9)
        acc[k - w:k] *= rng.uniform(0.05, 0.3)       # free fall
        acc[k:k + 4] += rng.normal(0, 1.0, size=(4, 3)) + rng.uniform(2.0, 3.0) * np.sign(rng.normal(size=3))
        g2 = _orientation(rng)[[2, 0, 1]]             # lying on another axis afterwards
        acc[k + 4:] = g2
        gyr[k - w:k + 4] = rng.normal(0, 120, size=(w + 4, 3))
    acc += rng.normal(0, 0.03, size=acc.shape)
    gyr += rng.normal(0, 3.0, size=gyr.shape)
    return acc.astype(np.float32), gyr.astype(np.float32)


def simulate_set(seed, n):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % len(ACTIVITIES)
    rng.shuffle(labels)
    acc, gyr = zip(*(simulate(rng, int(c)) for c in labels))
    return np.stack(acc), np.stack(gyr), labels.astype(np.int64)
