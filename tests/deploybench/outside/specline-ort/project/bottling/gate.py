"""The filler's quality gate: probe frame -> model input -> accept / divert.

Runs on the line PC next to the filler; kept free of the lab package's training dependencies
(the resampler is a local copy so the line PC does not need the lab's full stack).
"""
from dataclasses import dataclass, field

import numpy as np
import torch

from oilcheck.grid import GRADES, ModelAxis
from oilcheck.preprocessing import snv

from .probe import ProbeFrame, ProbeRecording


@dataclass
class FrameToInput:
    axis: ModelAxis = field(default_factory=ModelAxis)

    def __post_init__(self):
        self._grid = self.axis.wavenumbers()

    def _on_model_axis(self, frame: ProbeFrame):
        return np.interp(self._grid, frame.wavenumbers, frame.absorbance)

    def __call__(self, frame: ProbeFrame):
        spec = snv(self._on_model_axis(frame)).astype(np.float32)
        return torch.from_numpy(spec).reshape(1, 1, -1)


class QualityGate:
    def __init__(self, recording="lot_0412_confirmed.npz"):
        self.recording = ProbeRecording.open(recording)
        self.to_input = FrameToInput()

    def inputs(self, limit=None):
        return [(self.to_input(f),) for f in self.recording.frames(limit)]

    def decide(self, run):
        calls = [GRADES[int(np.argmax(np.asarray(run(*x))))] for x in self.inputs()]
        return ["fill" if c == "extra_virgin" else "divert" for c in calls]


def run_inputs():
    return QualityGate().inputs(limit=16)


def app_eval():
    g = QualityGate()
    return g.inputs(), torch.from_numpy(g.recording.grades)
