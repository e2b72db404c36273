"""Simulated ride telemetry of a 10s2p Li-ion e-bike pack, 128 samples at 2 Hz (64 s windows).

Health classes the pack monitor reports:
  0 healthy
  1 weak_cell      a high-resistance cell group: the pack sags far more under the same load
  2 loose_contact  intermittent discharge connector: short voltage dropouts unrelated to load
  3 thermal        a cell heating faster than the load explains (early thermal event)
"""
import numpy as np

CLASSES = ("healthy", "weak_cell", "loose_contact", "thermal")
SAMPLES, DT = 128, 0.5
CELLS, CAPACITY_AH = 10, 7.0


def _load_profile(rng):
    """Pedal-assist current: a cruise level with assist bursts (hills, starts) and coasting."""
    i = np.empty(SAMPLES)
    t = 0
    while t < SAMPLES:
        seg = int(rng.integers(4, 24))
        kind = rng.random()
        level = rng.uniform(0, 1.5) if kind < 0.2 else rng.uniform(3, 8) if kind < 0.7 else rng.uniform(10, 22)
        i[t:t + seg] = level
        t += seg
    kernel = np.ones(3) / 3
    return np.convolve(np.pad(i, 1, mode="edge"), kernel, mode="valid")


def window(rng, label):
    """One 64 s window: float64 (3, T) voltage [V], current [A], hottest cell temperature [degC]."""
    current = _load_profile(rng)
    soc = rng.uniform(0.25, 0.95) - np.cumsum(current) * DT / 3600.0 / CAPACITY_AH
    ocv = CELLS * (3.45 + 0.7 * soc + 0.08 * np.tanh((soc - 0.15) * 12))
    r_ohm = rng.uniform(0.08, 0.14) if label != 1 else rng.uniform(0.30, 0.50)
    # ohmic drop plus a slower polarisation term
    pol = np.zeros(SAMPLES)
    for k in range(1, SAMPLES):
        pol[k] = pol[k - 1] + DT / 8.0 * (current[k] * r_ohm * 0.4 - pol[k - 1])
    volt = ocv - r_ohm * current - pol
    if label == 2:
        for _ in range(int(rng.integers(2, 6))):
            at, width = int(rng.integers(0, SAMPLES - 3)), int(rng.integers(1, 4))
            volt[at:at + width] -= rng.uniform(1.5, 4.0)
    ambient = rng.uniform(5, 32)
    temp = np.empty(SAMPLES)
    temp[0] = ambient + rng.uniform(0, 6)
    for k in range(1, SAMPLES):
        heat = (current[k] / 2) ** 2 * r_ohm * 0.02
        temp[k] = temp[k - 1] + DT * (heat - (temp[k - 1] - ambient) / 600.0)
    if label == 3:
        tau = rng.uniform(15, 40)
        rise = rng.uniform(2.5, 7.0)
        t = np.arange(SAMPLES) * DT
        start = rng.uniform(0, 30)
        temp += rise * np.clip(np.expm1((t - start) / tau) / np.expm1((t[-1] - start) / tau), 0, None)
    volt += rng.normal(0, 0.02, SAMPLES)
    current += rng.normal(0, 0.08, SAMPLES)
    temp += rng.normal(0, 0.05, SAMPLES)
    return np.stack([volt, current, temp])


def make_windows(seed, count):
    """`count` windows with balanced labels: (float64 (count, 3, T), int64 labels)."""
    rng = np.random.default_rng(seed)
    labels = np.arange(count) % len(CLASSES)
    rng.shuffle(labels)
    return np.stack([window(rng, int(k)) for k in labels]), labels.astype(np.int64)
