"""The inspection station: every solder joint's ROI is classified alone (batch 1) as the
camera delivers it; `bridge`/`insufficient`/`cold`/`missing` stop the board for rework."""
from dataclasses import dataclass, field

import numpy as np
import torch

from aoi.synth import CLASSES

from .capture import CaptureLog
from .prep import RoiPreprocessor


@dataclass
class Verdict:
    ref: str
    label: str

    @property
    def rework(self):
        return self.label != "good"


@dataclass
class InspectionStation:
    prep: RoiPreprocessor = field(default_factory=RoiPreprocessor)

    def model_input(self, roi):
        return (self.prep.batch([roi]).to_tensor(),)

    def judge(self, run, roi):
        logits = np.asarray(run(*self.model_input(roi)))
        return Verdict(roi.ref, CLASSES[int(logits.argmax())])

    def inspect_board(self, run, rois):
        return [self.judge(run, r) for r in rois]


def run_inputs():
    log, st = CaptureLog(), InspectionStation()
    return [st.model_input(r) for r in log.rois[:12]]


def app_eval():
    log, st = CaptureLog(), InspectionStation()
    return [st.model_input(r) for r in log.rois], torch.from_numpy(log.truth)
