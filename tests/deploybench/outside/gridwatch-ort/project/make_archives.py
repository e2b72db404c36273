"""Write the committed monitor archives (fixed seeds): data/acceptance.npz (240 records, the
acceptance set), data/commissioning.npz (64 records, used for INT8 calibration) and
data/selftest.npz (the monitor's self-test capture, the service's warm-up record)."""
import os

import numpy as np

from pqmon.recorder import DATA, to_counts
from pqmon.waveforms import FS, SAMPLES, batch


def write_selftest(seed=3):
    """The monitor's self-test capture: its own reference sine (1 pu, 50 Hz, three phases)."""
    rng = np.random.default_rng(seed)
    t = np.arange(SAMPLES) / FS
    shift = np.array([0.0, -2 * np.pi / 3, 2 * np.pi / 3])[:, None]
    v = np.sin(2 * np.pi * 50.0 * t[None, :] + shift)[None] + rng.normal(0.0, 0.005, (1, 3, SAMPLES))
    counts, scales = to_counts(v, rng)
    path = os.path.join(DATA, "selftest.npz")
    np.savez_compressed(path, counts=counts, scales=scales, labels=np.zeros(1, np.int64))
    print(f"wrote {path}")


def write(name, n, seed):
    v, labels = batch(n, seed)
    counts, scales = to_counts(v, np.random.default_rng(seed + 1))
    path = os.path.join(DATA, name + ".npz")
    np.savez_compressed(path, counts=counts, scales=scales, labels=labels)
    print(f"wrote {path}: {n} records, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    write("acceptance", 240, seed=31)
    write("commissioning", 64, seed=77)
    write_selftest()
