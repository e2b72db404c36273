"""Reading the inline ATR probe's recordings (recordings/<batch>.npz: `wavenumbers` (M,) as the
driver reports them, `absorbance` (N, M), `grades` when the lab confirmed them)."""
import os
from dataclasses import dataclass

import numpy as np

RECORDINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recordings")


@dataclass
class ProbeFrame:
    wavenumbers: np.ndarray
    absorbance: np.ndarray


@dataclass
class ProbeRecording:
    wavenumbers: np.ndarray
    absorbance: np.ndarray
    grades: np.ndarray = None

    @classmethod
    def open(cls, name):
        with np.load(os.path.join(RECORDINGS, name)) as z:
            return cls(z["wavenumbers"], z["absorbance"], z["grades"] if "grades" in z else None)

    def frames(self, limit=None):
        n = len(self.absorbance) if limit is None else limit
        for i in range(n):
            yield ProbeFrame(self.wavenumbers, self.absorbance[i])
