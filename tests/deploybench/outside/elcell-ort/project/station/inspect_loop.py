"""The station's inspection loop: each cell crop is normalised and classified; anything but
`intact` flags the cell for the rework table."""
from dataclasses import dataclass

import torch

from elinspect.config import DEFECTS
from elinspect.normalise import CountNormaliser
from station.archive import QALot


@dataclass
class Verdict:
    defect: str
    rework: bool


class StringerStation:
    def __init__(self, lot: QALot):
        self.lot = lot
        self.normalise = CountNormaliser()

    def crop_tensor(self, i):
        return torch.from_numpy(self.normalise(self.lot.counts[i:i + 1]))

    def batch(self, limit=None):
        n = len(self.lot.counts) if limit is None else min(limit, len(self.lot.counts))
        return [(self.crop_tensor(i),) for i in range(n)]

    def judge(self, model, i) -> Verdict:
        d = DEFECTS[int(torch.as_tensor(model(self.crop_tensor(i))).argmax())]
        return Verdict(d, d != "intact")


def run_inputs():
    return StringerStation(QALot.load()).batch(limit=12)


def app_eval():
    st = StringerStation(QALot.load())
    return st.batch(), torch.from_numpy(st.lot.labels)
