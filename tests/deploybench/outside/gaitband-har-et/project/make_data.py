"""Regenerate data/ (fixed seeds; output committed):
  data/windows.npz      train/eval/calibration windows as the band's int16 counts (N, 64, 6) + labels
  data/field/*.gbr      three raw recordings pulled from bands in the field (header + int16 FIFO)
"""
from pathlib import Path

import numpy as np

from gaitband import synth
from gaitband.recording import write_recording

DATA = Path(__file__).resolve().parent / "data"


def main():
    xtr, ytr = synth.labelled_windows(seed=11, per_class=140)
    xev, yev = synth.labelled_windows(seed=22, per_class=48)
    xca, _ = synth.labelled_windows(seed=33, per_class=13)
    np.savez_compressed(DATA / "windows.npz", train_x=xtr, train_y=ytr, eval_x=xev, eval_y=yev, calib_x=xca[:64])
    rng = np.random.default_rng(44)
    for serial, plan in (("GB2-00417", ["walking", "walking", "running"]),
                         ("GB2-01133", ["resting", "brushing_teeth"]),
                         ("GB2-02980", ["cycling", "cycling", "walking", "resting"])):
        fifo = np.concatenate([synth.window_counts(rng, act) for act in plan])
        write_recording(DATA / "field" / f"{serial}.gbr", serial, fifo)
    print("wrote", DATA / "windows.npz", sorted(p.name for p in (DATA / "field").iterdir()))


if __name__ == "__main__":
    main()
