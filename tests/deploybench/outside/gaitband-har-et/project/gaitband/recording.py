"""The band's recording file (.gbr): a 16-byte header, then the IMU FIFO as little-endian int16
frames of 6 values (ax ay az gx gy gz)."""
import struct
from dataclasses import dataclass

import numpy as np

MAGIC = b"GBR2"
HEADER = struct.Struct("<4s10sH")   # magic, serial, sample rate


@dataclass
class Recording:
    serial: str
    rate_hz: int
    fifo: np.ndarray   # (samples, 6) int16


def write_recording(path, serial, fifo, rate_hz=25):
    with open(path, "wb") as f:
        f.write(HEADER.pack(MAGIC, serial.encode().ljust(10, b"\0"), rate_hz))
        f.write(np.asarray(fifo, dtype="<i2").tobytes())


def read_recording(path) -> Recording:
    with open(path, "rb") as f:
        raw = f.read()
    magic, serial, rate = HEADER.unpack_from(raw)
    if magic != MAGIC:
        raise ValueError(f"{path}: not a GaitBand recording")
    fifo = np.frombuffer(raw, dtype="<i2", offset=HEADER.size).reshape(-1, 6)
    return Recording(serial.rstrip(b"\0").decode(), rate, fifo)
