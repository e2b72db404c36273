"""Gateway loop: read a block from the accelerometer, build the model input, classify, alarm."""
from dataclasses import dataclass, field

import numpy as np

from . import dsp_compat

CLASS_NAMES = ("healthy", "imbalance", "misalignment", "bearing", "looseness")


@dataclass
class AccelReader:
    """Turns the sensor's packets (counts, int16, 1 mg per count) into g; here fed from memory."""
    mg_per_count: float = 1.0

    def to_g(self, counts: np.ndarray) -> np.ndarray:
        return counts.astype(np.float64) * (self.mg_per_count / 1000.0)


@dataclass
class FanMonitor:
    reader: AccelReader = field(default_factory=AccelReader)
    alarm_classes: tuple = ("bearing", "looseness")

    def model_input(self, block_g: np.ndarray) -> np.ndarray:
        spec = dsp_compat.axis_spectra(block_g)
        return spec[None]                                  # (1, 3, 128) float32

    def on_block(self, block_g: np.ndarray, session) -> str:
        (logits,) = session.run(None, {"spectrum": self.model_input(block_g)})
        label = CLASS_NAMES[int(np.argmax(logits))]
        if label in self.alarm_classes:
            print(f"ALARM: fan vibration signature '{label}'")
        return label
