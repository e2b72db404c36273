"""Accelerometer archives as the band's logger writes them.

The logger stores raw ADC counts (int16) of a +-4 g accelerometer, one window of 64 samples
(25 Hz) per row, axis-major (x, y, z). Every archive is an .npz with

    counts      int16  (N, 3, 64)
    activity    int8   (N,)        label index into ACTIVITIES
    session     int16  (N,)        recording session id (one subject, one protocol run)
    lsb_per_g   int    ()          sensitivity of the part, counts per g

Sessions are recorded with the lab protocol (a block of each activity in turn), and the logger
appends windows in recording order, so an archive is ordered by session and then by activity.
"""
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

ARCHIVE_DIR = Path(__file__).resolve().parent.parent / "archives"
ACTIVITIES = ("still", "walk", "run", "cycle")
SAMPLE_RATE_HZ = 25
WINDOW = 64


@dataclass(frozen=True)
class WindowBatch:
    """Windows converted to physical units (g), float32 (N, 3, 64), with their labels."""
    accel_g: np.ndarray
    activity: np.ndarray
    session: np.ndarray


@lru_cache(maxsize=4)
def _read(name: str):
    with np.load(ARCHIVE_DIR / f"{name}.npz") as z:
        return {k: z[k] for k in z.files}


def counts_to_g(counts: np.ndarray, lsb_per_g: int) -> np.ndarray:
    return (counts.astype(np.float32) / float(lsb_per_g)).astype(np.float32)


def load_archive(name: str) -> WindowBatch:
    raw = _read(name)
    accel = counts_to_g(raw["counts"], int(raw["lsb_per_g"]))
    return WindowBatch(np.ascontiguousarray(accel), raw["activity"].astype(np.int64), raw["session"].astype(np.int64))
