"""The sort line's identification station: each flake the NIR line scanner sees arrives as a
frame of raw counts; the station calibrates it against the scanner's current dark/white
references, asks the deployed PolymerNet, and fires the ejector of the flake's bin."""
from dataclasses import dataclass, field

import torch

from nirsort.archive import Scan, ScanArchive
from nirsort.bands import POLYMERS
from nirsort.radiometry import Radiometry

EJECT_BINS = {"PET": 1, "HDPE": 2, "LDPE": 2, "PP": 3, "PS": 4, "PVC": 0}   # PVC is rejected


@dataclass
class FlakeFeed:
    radiometry: Radiometry = field(default_factory=Radiometry)

    def model_input(self, scan: Scan):
        refl = self.radiometry.reflectance(scan)
        return (torch.from_numpy(refl).reshape(1, 1, -1),)


class IdentificationStation:
    def __init__(self, session="line_live.npz"):
        self.frames = ScanArchive(session)
        self.feed = FlakeFeed()

    def inputs(self, limit=None):
        n = len(self.frames) if limit is None else min(limit, len(self.frames))
        return [self.feed.model_input(self.frames[i]) for i in range(n)]

    def decide(self, run, scan):
        polymer = POLYMERS[int(torch.as_tensor(run(*self.feed.model_input(scan))).argmax())]
        return polymer, EJECT_BINS[polymer]


def run_inputs():
    return IdentificationStation().inputs(limit=16)


def app_eval():
    """The hand-sorted line session (eval_data's flakes, same order) through the station's feed."""
    st = IdentificationStation("line_handsorted.npz")
    return st.inputs(), torch.tensor([st.frames[i].label for i in range(len(st.frames))])
