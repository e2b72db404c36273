"""Per-channel standardisation fitted on the training telemetry (degC, m3/h, %)."""
import json
import os
from dataclasses import dataclass

import numpy as np

STATS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "params", "channel_stats.json")


@dataclass
class ChannelScaler:
    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, windows):
        return cls(windows.mean(axis=(0, 2)), windows.std(axis=(0, 2)))

    @classmethod
    def load(cls, path=STATS):
        with open(path) as f:
            d = json.load(f)
        return cls(np.asarray(d["mean"], np.float32), np.asarray(d["std"], np.float32))

    def save(self, path=STATS):
        with open(path, "w") as f:
            json.dump({"mean": [float(v) for v in self.mean], "std": [float(v) for v in self.std]}, f, indent=1)

    def transform(self, windows):
        """(..., channels, minutes) in engineering units -> float32 standardised."""
        return ((windows - self.mean[:, None]) / self.std[:, None]).astype(np.float32)
