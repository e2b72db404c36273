"""Writes the gateway captures: data/holdout_capture.bin (400 labelled packets, labels in
data/holdout_labels.npy) and data/calibration_capture.bin (64 packets). Fixed seeds; the training
windows are rendered by train.py itself (collar.motion, seed 7)."""
import numpy as np

from collar.motion import render_windows
from collar.packets import write_capture
from collar.service import DATA, HOLDOUT_CAPTURE, HOLDOUT_LABELS
from holdout import CALIBRATION_CAPTURE


def main():
    DATA.mkdir(exist_ok=True)
    counts, labels = render_windows(400, seed=2025)
    ids = np.random.default_rng(1).integers(100, 180, len(labels))
    write_capture(HOLDOUT_CAPTURE, ids, counts)
    np.save(HOLDOUT_LABELS, labels)
    counts, _ = render_windows(64, seed=303)
    write_capture(CALIBRATION_CAPTURE, np.random.default_rng(2).integers(100, 180, 64), counts)
    for p in (HOLDOUT_CAPTURE, HOLDOUT_LABELS, CALIBRATION_CAPTURE):
        print(f"wrote {p} ({p.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
