"""The spectral axis the model was trained on."""
from dataclasses import dataclass

import numpy as np

GRADES = ("extra_virgin", "cut_sunflower", "cut_hazelnut", "refined_pomace")


@dataclass(frozen=True)
class ModelAxis:
    lo_cm1: float = 700.0
    hi_cm1: float = 3100.0
    points: int = 160

    def wavenumbers(self):
        """Ascending wavenumbers (cm^-1) of the model's input bins."""
        return np.linspace(self.lo_cm1, self.hi_cm1, self.points)
