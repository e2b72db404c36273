"""The collar radio packet, as the gateway receives it.

One record = 772 bytes, little-endian:
    uint16 collar_id, uint16 seq, then 64 samples x 6 int16 IMU counts, sample by sample
    (ax, ay, az, gx, gy, gz of sample 0, then of sample 1, ...).
The gateway appends records to a capture file (data/*.bin) unchanged.
"""
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .motion import CHANNELS, WINDOW

RECORD = np.dtype([("collar_id", "<u2"), ("seq", "<u2"), ("imu", "<i2", (WINDOW, len(CHANNELS)))])


@dataclass(frozen=True)
class CollarPacket:
    collar_id: int
    seq: int
    counts: np.ndarray          # (WINDOW, 6) int16, in transmission order

    @classmethod
    def from_record(cls, rec):
        return cls(int(rec["collar_id"]), int(rec["seq"]), np.array(rec["imu"], dtype=np.int16))


def read_capture(path):
    """All packets of a capture file, in arrival order."""
    return [CollarPacket.from_record(r) for r in np.fromfile(Path(path), dtype=RECORD)]


def write_capture(path, collar_ids, counts):
    recs = np.zeros(len(counts), dtype=RECORD)
    recs["collar_id"] = collar_ids
    recs["seq"] = np.arange(len(counts)) % 65536
    recs["imu"] = counts
    recs.tofile(Path(path))
