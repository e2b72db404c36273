"""The BMS CAN log stores each 0.5 s sample as three int16 fields:
pack voltage in 10 mV, pack current in 10 mA (discharge positive), hottest cell in 0.1 degC."""
import numpy as np

SCALE = np.array([0.01, 0.01, 0.1], dtype=np.float32)  # -> V, A, degC


def encode(window_si):
    """float (3, T) in V, A, degC -> int16 (3, T) in CAN units."""
    return np.round(np.asarray(window_si) / SCALE[:, None].astype(np.float64)).astype(np.int16)


def decode(window_raw):
    """int16 (..., 3, T) in CAN units -> float32 (..., 3, T) in V, A, degC."""
    return np.asarray(window_raw).astype(np.float32) * SCALE[:, None]
