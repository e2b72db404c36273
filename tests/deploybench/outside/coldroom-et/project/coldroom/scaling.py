"""Feature standardisation: the model is trained and fed z-scores of the raw telemetry, with the
fleet statistics stored in telemetry/scaler.json (fitted once on the training history)."""
import json
import os
from dataclasses import dataclass

import numpy as np

from . import FEATURES

SCALER_JSON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "telemetry", "scaler.json")


@dataclass(frozen=True)
class TelemetryScaler:
    mean: np.ndarray
    std: np.ndarray

    @classmethod
    def fit(cls, rows: np.ndarray) -> "TelemetryScaler":
        return cls(rows.mean(axis=0).astype(np.float32), rows.std(axis=0).astype(np.float32))

    @classmethod
    def load(cls, path: str = SCALER_JSON) -> "TelemetryScaler":
        with open(path) as f:
            d = json.load(f)
        return cls(np.array([d["mean"][k] for k in FEATURES], np.float32),
                   np.array([d["std"][k] for k in FEATURES], np.float32))

    def save(self, path: str = SCALER_JSON):
        with open(path, "w") as f:
            json.dump({"mean": dict(zip(FEATURES, map(float, self.mean))),
                       "std": dict(zip(FEATURES, map(float, self.std)))}, f, indent=1)

    def transform(self, rows: np.ndarray) -> np.ndarray:
        return ((np.asarray(rows, np.float32) - self.mean) / self.std).astype(np.float32)


SCALER = TelemetryScaler.load() if os.path.isfile(SCALER_JSON) else None
