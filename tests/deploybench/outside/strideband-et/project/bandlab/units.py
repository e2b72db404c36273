"""Unit handling: the network is trained on acceleration in g."""
import numpy as np

STANDARD_GRAVITY = 9.80665
TO_G = {"g": 1.0, "mg": 1e-3, "m/s2": 1.0 / STANDARD_GRAVITY}


def to_g(recording):
    """The recording's stream converted to g (the unit the network was trained on)."""
    try:
        factor = TO_G[recording.unit]
    except KeyError:
        raise ValueError(f"{recording.name}: unknown unit {recording.unit!r}; known: {sorted(TO_G)}")
    return (recording.accel * factor).astype(np.float32)
