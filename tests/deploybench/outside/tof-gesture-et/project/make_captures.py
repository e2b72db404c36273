"""Regenerate the committed captures: data/captures_eval.npz, data/captures_calib.npz (seeded)."""
import os

import numpy as np

from zonegest.sim import captures

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    for split, n, seed in (("eval", 360, 202), ("calib", 64, 303)):
        raw, y = captures(n, seed)
        path = os.path.join(HERE, "data", f"captures_{split}.npz")
        np.savez_compressed(path, range_mm=raw, gesture=y)
        print(f"{path}: {raw.shape} {raw.dtype} {np.bincount(y)}")


if __name__ == "__main__":
    main()
