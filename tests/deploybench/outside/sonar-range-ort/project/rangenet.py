"""RangeNet: a tiny 1-D CNN over one echo profile (1 x 40 range bins) -> 3 classes.

A fixed log compander (log1p of a gain times the amplitude), three Conv1d blocks (the second
strided), a max over range (where the strongest structure is does not matter, only what it
looks like), and a linear read-out. About 1.6k parameters.
"""
from pathlib import Path

import torch
from torch import nn

COMPANDER_GAIN = 50.0  # log compression of amplitudes in [0, 1]
CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "rangenet.pt"


class RangeNet(nn.Module):
    def __init__(self, n_classes=3, width=16):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv1d(1, width // 2, 5, padding=2), nn.BatchNorm1d(width // 2), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv1d(width // 2, width, 5, stride=2, padding=2), nn.BatchNorm1d(width), nn.ReLU())
        self.block3 = nn.Sequential(nn.Conv1d(width, width, 3, padding=1), nn.BatchNorm1d(width), nn.ReLU())
        self.readout = nn.Linear(width, n_classes)

    def forward(self, echo):
        # compress the echo's dynamic range (weak fish returns next to strong hull returns)
        h = torch.log1p(COMPANDER_GAIN * echo)
        h = self.block3(self.block2(self.block1(h)))
        return self.readout(h.amax(dim=2))


def restore():
    net = RangeNet()
    net.load_state_dict(torch.load(CHECKPOINT, map_location="cpu", weights_only=True))
    return net.eval()
