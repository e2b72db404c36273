"""Write the stored station logs (fixed seeds): logs/bench_eval.npz, logs/bench_calib.npz.
The station records millivolts (uint16) and milliamps (int16)."""
import os

import numpy as np

from grading.chemistry import simulate

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "logs")


def to_station(v, i, g):
    return dict(voltage_mv=np.round(v * 1000).astype(np.uint16), current_ma=np.round(i * 1000).astype(np.int16),
                grade=g.astype(np.int8))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, n, seed in (("bench_eval.npz", 400, 11), ("bench_calib.npz", 64, 12)):
        v, i, soh, g = simulate(n, seed)
        np.savez_compressed(os.path.join(OUT, name), **to_station(v, i, g))
        print(name, n, "grades", np.bincount(g, minlength=4).tolist())


if __name__ == "__main__":
    main()
