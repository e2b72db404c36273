"""The wristband's IMU (6-axis, 50 Hz) and how its raw samples map to physical units.

The sensor is configured for +-4 g and +-500 dps; the driver delivers little-endian int16
samples, interleaved ax ay az gx gy gz.  Sensitivities from the datasheet.
"""
import numpy as np

SAMPLE_RATE_HZ = 50
WINDOW = 64                      # samples per gesture window (1.28 s)
CHANNELS = ("ax", "ay", "az", "gx", "gy", "gz")

ACC_LSB_PER_G = 8192.0           # +-4 g full scale
GYRO_LSB_PER_DPS = 65.536        # +-500 dps full scale (32768 / 500)
LSB_PER_UNIT = np.array([ACC_LSB_PER_G] * 3 + [GYRO_LSB_PER_DPS] * 3, dtype=np.float32)


def counts_to_si(counts):
    """int16 counts (..., 6) -> g (accel) and deg/s (gyro), float32."""
    return np.asarray(counts, dtype=np.float32) / LSB_PER_UNIT


def si_to_counts(values):
    """What the driver would deliver for values in g / deg/s (rounded, saturated)."""
    return np.clip(np.round(np.asarray(values) * LSB_PER_UNIT), -32768, 32767).astype(np.int16)
