"""INT8 calibration windows: a fixed draw from the CALIBRATION sources (imu/sources.py)."""
import numpy as np

from imu.sources import CALIBRATION
from imu.windows import SourceLoader


class CalibrationFeeder:
    def __init__(self, sources=CALIBRATION, per_source=None, seed=0):
        self.sources = sources
        self.per_source = per_source
        self.loader = SourceLoader()
        self.rng = np.random.default_rng(seed)

    def _draw(self, source):
        x, _ = self.loader.windows(source)
        if self.per_source and len(x) > self.per_source:
            keep = np.sort(self.rng.choice(len(x), self.per_source, replace=False))
            x = x[keep]
        return x

    def batches(self):
        out = []
        for source in self.sources:
            x = self._draw(source)
            out.extend((x[i:i + 1].clone(),) for i in range(len(x)))
        return out
