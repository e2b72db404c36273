"""PolymerNet: 1-D conv net over a reflectance spectrum (batch, 1, 128) -> polymer logits."""
import os

import torch
from torch import nn

from .bands import BANDS, POLYMERS

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "polymernet.pt")


class PolymerNet(nn.Module):
    def __init__(self, width=(16, 32, 32), hidden=64):
        super().__init__()
        a, b, c = width
        self.features = nn.Sequential(
            nn.Conv1d(1, a, 9, padding=4), nn.BatchNorm1d(a), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(a, b, 7, padding=3), nn.BatchNorm1d(b), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(b, c, 5, padding=2), nn.BatchNorm1d(c), nn.ReLU(), nn.MaxPool1d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(c * (BANDS // 8), hidden), nn.ReLU(),
                                        nn.Linear(hidden, len(POLYMERS)))

    def forward(self, spectrum):
        return self.classifier(self.features(spectrum))


def load_polymernet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    net = PolymerNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
