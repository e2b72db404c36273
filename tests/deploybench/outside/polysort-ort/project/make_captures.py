"""Write the committed line captures: data/eval_capture.npz (the acceptance set, 512 flakes)
and data/calib_capture.npz (256 flakes from another start-up of the line, for INT8 calibration).
Deterministic (fixed seeds)."""
import os

import numpy as np

from nirsort.synth import capture

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, n, seed):
    raw, labels, refs = capture(n, seed)
    path = os.path.join(HERE, "data", name)
    np.savez_compressed(path, raw=raw, labels=labels, dark=refs.dark.astype(np.float32),
                        white=refs.white.astype(np.float32))
    print(f"wrote {path}: {n} flakes, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    write("eval_capture.npz", 512, seed=2024)
    write("calib_capture.npz", 256, seed=7)
