"""1-D CNN over the SNV spectrum."""
import os

import torch
from torch import nn

from .grid import GRADES, ModelAxis

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "oilnet.pt")


class SpectralBlock(nn.Sequential):
    def __init__(self, cin, cout, k):
        super().__init__(nn.Conv1d(cin, cout, k, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(2))


class OilGradeNet(nn.Module):
    def __init__(self, points=ModelAxis().points, classes=len(GRADES)):
        super().__init__()
        self.features = nn.Sequential(SpectralBlock(1, 16, 7), SpectralBlock(16, 32, 5), SpectralBlock(32, 32, 5))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * (points // 8), 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, spectrum):
        return self.head(self.features(spectrum))


def load_oilnet(path=WEIGHTS):
    net = OilGradeNet()
    net.load_state_dict(torch.load(path, map_location="cpu"))
    return net.eval()
