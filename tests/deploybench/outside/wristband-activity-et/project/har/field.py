"""Field captures collected by the field team with the companion phone app.

The phone app streams the band's accelerometer over BLE and stores 64-sample windows at 25 Hz,
unlabelled, in archives/phone_field_captures.npz:

    accel_ms2       float32 (N, 3, 64)
    sample_rate_hz  int     ()
    unit            str     ()
    source          str     ()
"""
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from har.sensors import ARCHIVE_DIR, SAMPLE_RATE_HZ, WINDOW

FIELD_ARCHIVE = ARCHIVE_DIR / "phone_field_captures.npz"


@dataclass(frozen=True)
class FieldCapture:
    windows: np.ndarray      # (N, 3, WINDOW) float32
    sample_rate_hz: int
    source: str

    def __post_init__(self):
        if self.windows.shape[1:] != (3, WINDOW):
            raise ValueError(f"field windows must be (N, 3, {WINDOW}), got {self.windows.shape}")
        if self.sample_rate_hz != SAMPLE_RATE_HZ:
            raise ValueError(f"field capture at {self.sample_rate_hz} Hz, the model runs at {SAMPLE_RATE_HZ} Hz")


def load_field_capture(path: Path = FIELD_ARCHIVE) -> FieldCapture:
    with np.load(path) as z:
        return FieldCapture(np.ascontiguousarray(z["accel_ms2"], dtype=np.float32),
                            int(z["sample_rate_hz"]), str(z["source"]))
