"""Camera side of the field app.

The tablet camera hands over each leaf crop as a uint8 (16, 16, 3) array, the way its SDK
stores pixels. `Pipeline` applies the per-channel normalisation from the model card and makes
a batch of one.
"""
from dataclasses import dataclass, field

import numpy as np

from leafnet.patches import SPEC, field_shots


@dataclass
class Pipeline:
    mean: np.ndarray = field(default_factory=lambda: np.array(SPEC.mean))
    std: np.ndarray = field(default_factory=lambda: np.array(SPEC.std))

    def prepare(self, crop):
        """One uint8 camera crop -> the normalised batch the classifier is given."""
        pixels = crop / 255.0
        return ((pixels - self.mean) / self.std)[np.newaxis, ...]

    def __call__(self, crop):
        return self.prepare(crop)


class FieldCamera:
    """Replays a recorded scouting walk (the tablet's capture log) crop by crop."""

    def __init__(self, walk_seed=202):
        self.walk_seed = walk_seed

    def crops(self, count):
        shots, labels = field_shots(count, seed=self.walk_seed)
        return list(shots), [int(v) for v in labels]
