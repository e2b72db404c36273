"""Writes data/survey_clips.npz: the survey team's labelled holdout (400 clips) and the 64 clips
kept for INT8 calibration, as the recorders store them (uint8 dB codes). Fixed seeds; the training
clips are rendered by train.py itself (chorus.synth, seed 11)."""
from pathlib import Path

import numpy as np

from chorus.synth import render_set

OUT = Path(__file__).resolve().parent / "data" / "survey_clips.npz"


def main():
    holdout_codes, holdout_labels = render_set(400, seed=2024)
    calib_codes, _ = render_set(64, seed=77)
    OUT.parent.mkdir(exist_ok=True)
    np.savez_compressed(OUT, holdout_codes=holdout_codes, holdout_labels=holdout_labels,
                        calib_codes=calib_codes)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
