"""Signal conditioning on the gateway: a sensor-head record -> the network's input window.

Written against the sensor head's datasheet (pumpwatch.recordfile.SENSOR_HEAD), with numpy only:
the gateway image has no torch and no pandas.
"""
from dataclasses import dataclass, field

import numpy as np

from pumpwatch.recordfile import SENSOR_HEAD, Record


@dataclass
class SignalConditioner:
    spec: tuple = SENSOR_HEAD
    window: int = 128
    _offset: np.ndarray = field(init=False, repr=False)
    _scale: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self._offset = np.array([c.offset_counts for c in self.spec], dtype=np.float32)
        self._scale = np.array([c.units_per_count for c in self.spec], dtype=np.float32)

    def physical(self, counts):
        """ADC counts (n, channels) -> g and A."""
        return (counts.astype(np.float32) - self._offset) * self._scale

    def to_model_input(self, record: Record):
        """One record -> the (1, channels, window) float32 input of the model."""
        phys = self.physical(record.counts[-self.window:])
        return np.ascontiguousarray(phys.T[None], dtype=np.float32)
