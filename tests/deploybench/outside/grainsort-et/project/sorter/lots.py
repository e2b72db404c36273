"""Lot recordings of the sorter: lots/<name>.npz holds `raw` uint16 (N, bands) counts, the run's
`dark` and `white` references, and `grades` when the lab graded the lot by hand."""
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

LOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lots")


@dataclass
class LotRecording:
    raw: np.ndarray
    dark: np.ndarray
    white: np.ndarray
    grades: Optional[np.ndarray] = None

    @classmethod
    def load(cls, name):
        with np.load(os.path.join(LOTS, name)) as z:
            return cls(z["raw"], z["dark"], z["white"], z["grades"] if "grades" in z else None)

    def save(self, name):
        os.makedirs(LOTS, exist_ok=True)
        extra = {} if self.grades is None else {"grades": self.grades}
        np.savez_compressed(os.path.join(LOTS, name), raw=self.raw, dark=self.dark, white=self.white, **extra)
