"""The station's digitizer output: int32 counts per component, stored per session in archive/."""
import os
from dataclasses import dataclass, field

import numpy as np

from seismo.config import StationConfig

ARCHIVE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "archive")


@dataclass
class Recording:
    counts: np.ndarray                 # int32, (windows, 3, samples) or (3, samples) for a stream
    labels: np.ndarray = None          # int64 (windows,), analyst-reviewed sessions only

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(ARCHIVE, name)) as z:
            return cls(z["counts"], z["labels"] if "labels" in z else None)


@dataclass
class Digitizer:
    station: StationConfig = field(default_factory=StationConfig)

    def to_velocity(self, counts):
        """counts -> ground velocity in um/s, float32."""
        return (np.asarray(counts, dtype=np.float64) / self.station.counts_per_um_s).astype(np.float32)
