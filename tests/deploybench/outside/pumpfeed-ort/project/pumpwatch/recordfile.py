"""The sensor head's record file format (firmware 2.x), shared by the lab tools and the edge app.

A file is a sequence of records. Each record is a 16-byte little-endian header

    magic  4s   b"PWR1"
    seq    u32  running record number
    fs_hz  u16  sample rate (1000)
    n      u16  samples per channel (128)
    flags  u32  bit 0: current clamp fitted

followed by n frames of 4 int16 ADC counts, interleaved in the order the ADC scans them:
accel X, accel Y, accel Z (axial), motor current. Counts are raw: see SENSOR_HEAD for units.
"""
import struct
from dataclasses import dataclass

import numpy as np

MAGIC = b"PWR1"
HEADER = struct.Struct("<4sIHHI")
CHANNELS = ("accel_x", "accel_y", "accel_z", "motor_current")


@dataclass(frozen=True)
class ChannelSpec:
    name: str
    offset_counts: float   # counts at zero
    units_per_count: float  # physical units per count
    unit: str


# datasheet values of the sensor head (ADXL-class accelerometer at +-8 g, 16 bit; Hall clamp on a
# 12-bit converter, mid-scale at zero current, 10 mA per count)
SENSOR_HEAD = (
    ChannelSpec("accel_x", 0.0, 16.0 / 65536, "g"),
    ChannelSpec("accel_y", 0.0, 16.0 / 65536, "g"),
    ChannelSpec("accel_z", 0.0, 16.0 / 65536, "g"),
    ChannelSpec("motor_current", 2048.0, 0.01, "A"),
)


@dataclass
class Record:
    seq: int
    fs_hz: int
    flags: int
    counts: np.ndarray  # int16 (n, 4), time-major as stored


def write_records(path, frames, fs_hz=1000):
    with open(path, "wb") as f:
        for seq, counts in enumerate(frames):
            counts = np.asarray(counts, dtype="<i2")
            f.write(HEADER.pack(MAGIC, seq, fs_hz, counts.shape[0], 1))
            f.write(counts.tobytes())


def read_records(path):
    out = []
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0
    while pos < len(buf):
        magic, seq, fs_hz, n, flags = HEADER.unpack_from(buf, pos)
        if magic != MAGIC:
            raise ValueError(f"{path}: bad record magic at byte {pos}")
        pos += HEADER.size
        size = n * len(CHANNELS) * 2
        counts = np.frombuffer(buf, dtype="<i2", count=n * len(CHANNELS), offset=pos).reshape(n, len(CHANNELS))
        pos += size
        out.append(Record(seq, fs_hz, flags, counts.copy()))
    return out
