"""Write the stored vibration sets (data/*.npz, float16 to keep the repository small).
Deterministic: `python make_data.py` rewrites identical files."""
import os

import numpy as np

from bearingnet import synth

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    for name, n, seed in (("train", 96, 11), ("eval", 48, 23)):
        x, y = synth.make_set(n, seed)
        path = os.path.join(HERE, "data", f"vibration_{name}.npz")
        np.savez_compressed(path, accel=x.astype(np.float16), condition=y)
        print(f"{path}: {x.shape} windows, max |g| {np.abs(x).max():.2f}")


if __name__ == "__main__":
    main()
