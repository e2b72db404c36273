"""FlakeNet: the polymer classifier of the sorting line.

A plain spectral MLP on the SNV absorbance of one flake (256 bands): two wide GELU layers and a
linear read-out over the six polymers the line ejects. One camera frame segments up to
FRAME_FLAKES flakes, which are classified together as one batch.
"""
import os

import torch
from torch import nn

from .optics import N_BANDS
from .synth import POLYMERS

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "..", "weights", "flakenet_v3.pt")
FRAME_FLAKES = 32
HIDDEN = 512


class FlakeNet(nn.Module):
    def __init__(self, bands: int = N_BANDS, hidden: int = HIDDEN, classes: int = len(POLYMERS), dropout: float = 0.1):
        super().__init__()
        self.embed = nn.Linear(bands, hidden)
        self.mix = nn.Linear(hidden, hidden)
        self.drop = nn.Dropout(dropout)
        self.readout = nn.Linear(hidden, classes)
        self.act = nn.GELU()

    def forward(self, spectra: torch.Tensor) -> torch.Tensor:
        h = self.act(self.embed(spectra))
        h = self.act(self.mix(self.drop(h)))
        return self.readout(self.drop(h))


def load_flakenet(path: str = WEIGHTS) -> FlakeNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (a few seconds)")
    net = FlakeNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
