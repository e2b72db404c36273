"""The accelerometer's ADC: counts <-> g. The gateway receives int16 counts."""
import numpy as np

from . import FULL_SCALE_G

COUNTS_PER_G = 32768.0 / FULL_SCALE_G   # 8192 LSB/g at +-4 g


def g_to_counts(g: np.ndarray) -> np.ndarray:
    """What the sensor does: quantise and saturate at the rails."""
    return np.clip(np.round(g * COUNTS_PER_G), -32768, 32767).astype(np.int16)


def counts_to_g(counts: np.ndarray) -> np.ndarray:
    return counts.astype(np.float32) / np.float32(COUNTS_PER_G)
