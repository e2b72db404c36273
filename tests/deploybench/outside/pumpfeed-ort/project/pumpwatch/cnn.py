"""PumpNet: a small 1-D CNN over a 128 ms window of the four sensor channels."""
import os

import torch
from torch import nn

from pumpwatch.bench_rig import CONDITIONS

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pumpnet.pt")


class PumpNet(nn.Module):
    def __init__(self, channels=4, classes=len(CONDITIONS)):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(channels, 16, 7, stride=2, padding=3), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.classifier = nn.Linear(32, classes)

    def forward(self, window):
        return self.classifier(self.body(window).mean(dim=2))


def load_pumpnet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py`")
    net = PumpNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
