"""Regenerate data/ (fixed seeds; output committed):
  data/wafers.npz      train / eval / calibration bin maps (uint8, 32x32) and pattern labels
  data/lots/*.csv      two lots as the prober exports them: one die per row (lot, wafer, x, y, bin)
"""
import csv
from pathlib import Path

import numpy as np

from fabscan import wafer_synth as ws

DATA = Path(__file__).resolve().parent / "data"


def main():
    xtr, ytr = ws.labelled_maps(seed=5, per_class=250)
    xev, yev = ws.labelled_maps(seed=6, per_class=60)
    xca, _ = ws.labelled_maps(seed=7, per_class=11)
    np.savez_compressed(DATA / "wafers.npz", train_x=xtr, train_y=ytr, eval_x=xev, eval_y=yev, calib_x=xca[:64])
    rng = np.random.default_rng(8)
    for lot in ("LT24117", "LT24130"):
        with open(DATA / "lots" / f"{lot}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["lot", "wafer", "die_x", "die_y", "bin"])
            for wafer in range(1, 7):
                grid = ws.bin_map(rng, ws.PATTERNS[rng.integers(len(ws.PATTERNS))])
                for y, x in zip(*np.nonzero(grid)):
                    w.writerow([lot, wafer, x, y, grid[y, x]])
    print("wrote", sorted(p.name for p in DATA.rglob("*") if p.is_file()))


if __name__ == "__main__":
    main()
