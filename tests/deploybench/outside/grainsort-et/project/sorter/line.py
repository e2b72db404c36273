"""The sorter's grading loop: each kernel's spectrum is conditioned with the run's references
and fed to the grader; anything but `sound` fires the ejector."""
from dataclasses import dataclass

import torch

from kernelnet.conditioning import Conditioner
from kernelnet.config import GRADES
from sorter.lots import LotRecording


@dataclass
class EjectDecision:
    grade: str
    eject: bool


class GradingLine:
    def __init__(self, lot: LotRecording):
        self.lot = lot
        self.condition = Conditioner(lot.dark, lot.white)

    def kernel_input(self, i):
        return torch.from_numpy(self.condition(self.lot.raw[i:i + 1]))

    def feed(self, limit=None):
        n = len(self.lot.raw) if limit is None else min(limit, len(self.lot.raw))
        return [(self.kernel_input(i),) for i in range(n)]

    def decide(self, grader, i) -> EjectDecision:
        g = GRADES[int(torch.as_tensor(grader(self.kernel_input(i))).argmax())]
        return EjectDecision(g, g != "sound")


def run_inputs():
    return GradingLine(LotRecording.load("lab_graded_lot.npz")).feed(limit=16)


def app_eval():
    line = GradingLine(LotRecording.load("lab_graded_lot.npz"))
    return line.feed(), torch.from_numpy(line.lot.grades)
