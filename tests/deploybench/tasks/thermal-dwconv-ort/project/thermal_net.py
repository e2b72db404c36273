"""A depthwise-separable CNN for 3-band 12x12 thermal frames (about 3k parameters).

Each stage is a depthwise 3x3 conv (one filter per channel, groups = channels) followed by a
pointwise 1x1 conv; the stages are built from a config list.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights", "thermal_net.pt")
# (in channels, out channels, stride) per separable stage
STAGES = [(3, 16, 1), (16, 32, 2), (32, 32, 2)]


def separable(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.ReLU6(),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU6(),
    )


class ThermalNet(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.trunk = nn.Sequential(*[separable(*cfg) for cfg in STAGES])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(STAGES[-1][1], classes)

    def forward(self, frame):
        return self.fc(self.pool(self.trunk(frame)).flatten(1))


def load_trained():
    net = ThermalNet()
    net.load_state_dict(torch.load(WEIGHTS, map_location="cpu", weights_only=True))
    return net.eval()
