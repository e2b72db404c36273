"""The one normalisation step between meter readings and the network.

Readings are hourly energy in kWh. The sites on this tariff all have a 50 kW connection, so a
reading is divided by the rated hourly energy (50 kWh) and the fleet's mean utilisation is taken
off. Every model input goes through `Normalizer.transform`.
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Normalizer:
    rated_kwh: float = 50.0        # rated energy per hour of the connection
    mean_utilisation: float = 0.2  # fleet average of reading / rated_kwh (training data)

    def transform(self, kwh):
        """kWh readings (..., 24) -> float32 network input of the same shape."""
        x = np.asarray(kwh, dtype=np.float32) / np.float32(self.rated_kwh)
        return x - np.float32(self.mean_utilisation)

    def inverse(self, x):
        return (np.asarray(x, dtype=np.float64) + self.mean_utilisation) * self.rated_kwh


NORMALIZER = Normalizer()
