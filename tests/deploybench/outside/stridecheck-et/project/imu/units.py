"""Unit handling: whatever a source stores -> accel in g (float32)."""
import numpy as np

_PER_G = {"g": 1.0, "mg": 1000.0, "m/s2": 9.80665}


def accel_to_g(accel, unit, lsb_per_g=None):
    if unit == "counts":
        if not lsb_per_g:
            raise ValueError("counts need the device's lsb_per_g")
        return accel.astype(np.float32) / np.float32(lsb_per_g)
    try:
        return accel.astype(np.float32) / np.float32(_PER_G[unit])
    except KeyError:
        raise ValueError(f"unknown accel unit {unit!r}") from None
