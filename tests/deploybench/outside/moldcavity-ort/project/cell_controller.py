"""Moulding-cell controller: after every cycle, the DAQ window of the two cavity-pressure
sensors is judged and the part is sorted (good parts to the conveyor, the rest to the scrap
chute).

The DAQ writes each logged run as shots/<run>.npz: `codes` int16 (cycles, 2, 256) at +/-10 V
full scale, and `verdicts` when quality control inspected the parts.
"""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from moldsense.config import PART_VERDICTS, SensorLayout

SHOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shots")


@dataclass
class ShotLog:
    codes: np.ndarray
    verdicts: np.ndarray = None

    @classmethod
    def load(cls, run):
        with np.load(os.path.join(SHOTS, run)) as z:
            return cls(z["codes"], z["verdicts"] if "verdicts" in z.files else None)

    def __len__(self):
        return len(self.codes)


@dataclass
class DaqScaling:
    """DAQ codes -> cavity pressure as a fraction of the tool's nominal peak."""
    layout: SensorLayout = field(default_factory=SensorLayout)
    full_scale_v: float = 10.0

    def to_bar(self, codes: np.ndarray) -> np.ndarray:
        volts = codes.astype(np.float32) * np.float32(self.full_scale_v / 32768.0)
        return volts / np.float32(self.layout.volts_per_bar)

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        return self.to_bar(codes) / np.float32(self.layout.nominal_bar)


class CycleWindow:
    """One cycle's window, checked and shaped for the net: (1, sensors, samples) float32."""

    def __init__(self, layout: SensorLayout = SensorLayout()):
        self.layout = layout
        self.scale = DaqScaling(layout)

    def __call__(self, cycle_codes: np.ndarray) -> torch.Tensor:
        expected = (len(self.layout.channels), self.layout.samples)
        if cycle_codes.shape != expected:
            raise ValueError(f"cycle window {cycle_codes.shape}, expected {expected}")
        frac = self.scale(cycle_codes)
        return torch.from_numpy(np.ascontiguousarray(frac, dtype=np.float32)).reshape(1, *expected)


class MoldingCell:
    def __init__(self, run="qc_audit.npz"):
        self.log = ShotLog.load(run)
        self.window = CycleWindow()

    def feed(self, limit=None):
        codes = self.log.codes if limit is None else self.log.codes[:limit]
        return [(self.window(c),) for c in codes]

    def sort_parts(self, judge):
        """judge: a callable on one input tuple -> logits; returns the verdict of every cycle."""
        return [PART_VERDICTS[int(np.asarray(judge(*x)).argmax())] for x in self.feed()]


def run_inputs():
    return MoldingCell().feed(limit=16)


def app_eval():
    cell = MoldingCell()
    return cell.feed(), torch.from_numpy(cell.log.verdicts)


if __name__ == "__main__":
    from moldsense.network import build_net

    net = build_net()
    with torch.no_grad():
        out = MoldingCell().sort_parts(lambda x: net(x))
    print({v: out.count(v) for v in PART_VERDICTS})
