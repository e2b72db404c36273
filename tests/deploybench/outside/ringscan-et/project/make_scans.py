"""Regenerate data/scans_{train,eval}.npz (fixed seeds; the committed files are what this writes)."""
import os

import numpy as np

from rangefinder import worlds

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    for split, n, seed in (("train", 2000, 11), ("eval", 400, 12)):
        scans, labels = worlds.make(n, seed)
        path = os.path.join(HERE, "data", f"scans_{split}.npz")
        np.savez_compressed(path, range_mm=scans, place=labels)
        print(f"{path}: {scans.shape} {np.bincount(labels)}")


if __name__ == "__main__":
    main()
