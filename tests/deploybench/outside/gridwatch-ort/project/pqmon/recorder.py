"""The feeder monitor's recorder format and the service's read path.

The monitors store each triggered window as int16 ADC counts per phase plus a per-channel
scale (per-unit per count) from their calibration sheet. The classification service reads a
record, scales it to per-unit and classifies it alone (batch of one, as records arrive).
"""
import os
from dataclasses import dataclass

import numpy as np

COUNTS_PER_PU = 7800.0          # nominal: 1 pu = 7800 counts, +-4.2 pu full scale
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


@dataclass
class Record:
    counts: np.ndarray          # (3, 320) int16
    scale: np.ndarray           # (3,) per-unit per count
    label: int = -1

    def per_unit(self) -> np.ndarray:
        return (self.counts.astype(np.float32) * self.scale[:, None].astype(np.float32))[None]


def to_counts(v: np.ndarray, rng) -> tuple:
    """Per-unit windows (n, 3, S) -> (int16 counts, per-channel scales (n, 3))."""
    gain = COUNTS_PER_PU * rng.uniform(0.98, 1.02, (v.shape[0], v.shape[1]))
    counts = np.clip(np.round(v * gain[:, :, None]), -32768, 32767).astype(np.int16)
    return counts, (1.0 / gain).astype(np.float32)


def read_archive(name: str):
    """All records of one committed archive (data/<name>.npz)."""
    with np.load(os.path.join(DATA, name + ".npz")) as z:
        counts, scales, labels = z["counts"], z["scales"], z["labels"]
    return [Record(counts[i], scales[i], int(labels[i])) for i in range(len(labels))]
