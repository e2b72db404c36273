"""Write the stored rig captures (fixed seeds): captures/rig_eval.npz and rig_calib.npz."""
import os

import numpy as np

from pumpwatch.synth import make_counts

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, n, seed in (("rig_eval.npz", 60, 101), ("rig_calib.npz", 12, 202)):
        counts, labels = make_counts(n, seed)
        np.savez_compressed(os.path.join(OUT, name), counts=counts, labels=labels)
        railed = (np.abs(counts.astype(np.int32)) >= 32600).any(axis=(1, 2)).sum()
        print(f"{name}: {len(labels)} windows, {railed} hit the rail")


if __name__ == "__main__":
    main()
