"""IMU counts -> physical units -> standardised channels.

The per-channel mean and standard deviation are fitted on the training windows by train.py and
stored in collar/channel_stats.json; both the training code and the gateway read them here.
"""
import json
from pathlib import Path

import numpy as np

from .motion import ACC_LSB_PER_G, GYRO_LSB_PER_DPS

STATS = Path(__file__).resolve().parent / "channel_stats.json"
COUNT_SCALE = np.array([1.0 / ACC_LSB_PER_G] * 3 + [1.0 / GYRO_LSB_PER_DPS] * 3, dtype=np.float32)


def counts_to_physical(counts):
    """int16 counts (..., 6) -> g and deg/s (..., 6), float32."""
    return np.asarray(counts, dtype=np.float32) * COUNT_SCALE


class ChannelStandardiser:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)

    @classmethod
    def fit(cls, physical):
        flat = physical.reshape(-1, physical.shape[-1])
        return cls(flat.mean(0), flat.std(0) + 1e-6)

    @classmethod
    def load(cls, path=STATS):
        d = json.loads(Path(path).read_text())
        return cls(d["mean"], d["std"])

    def save(self, path=STATS):
        Path(path).write_text(json.dumps({"mean": self.mean.tolist(), "std": self.std.tolist()}, indent=1) + "\n")

    def __call__(self, physical):
        """Standardises the last axis (the 6 channels)."""
        return ((physical - self.mean) / self.std).astype(np.float32)
