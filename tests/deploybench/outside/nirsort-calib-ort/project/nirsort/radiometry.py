"""Radiometric calibration: raw scanner counts -> diffuse reflectance, with the dark and white
references recorded alongside each capture session."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Radiometry:
    floor: float = 1.0     # counts: keeps (white - dark) away from zero on dead pixels

    def counts_to_reflectance(self, counts, dark, white):
        counts = np.asarray(counts, dtype=np.float32)
        span = np.maximum(np.asarray(white, np.float32) - np.asarray(dark, np.float32), self.floor)
        return ((counts - dark) / span).astype(np.float32)

    def reflectance(self, scan):
        """A Scan in whatever unit its session was stored in -> reflectance (float32, (BANDS,))."""
        if scan.unit == "reflectance":
            return np.asarray(scan.values, dtype=np.float32)
        if scan.unit == "counts":
            return self.counts_to_reflectance(scan.values, scan.dark, scan.white)
        raise ValueError(f"unknown unit {scan.unit!r}")
