"""1-D convolutional fault detector over a telemetry window."""
import os

import torch
from torch import nn

from .channels import DetectorSpec

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "params", "detector.pt")


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, kernel, stride=1):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel, stride=stride, padding=kernel // 2)
        self.norm = nn.BatchNorm1d(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class SubstationFaultDetector(nn.Module):
    def __init__(self, spec: DetectorSpec = DetectorSpec()):
        super().__init__()
        w = spec.width
        self.features = nn.Sequential(
            TemporalBlock(spec.window.channels, w, 5),
            TemporalBlock(w, w, 5, stride=2),
            TemporalBlock(w, 2 * w, 3, stride=2),
        )
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.classifier = nn.Linear(2 * w, spec.num_conditions)

    def forward(self, telemetry):
        return self.classifier(self.pool(self.features(telemetry)).flatten(1))


def load_detector(path=WEIGHTS, spec: DetectorSpec = DetectorSpec()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: run `python train.py` first")
    net = SubstationFaultDetector(spec)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
