"""StrideNet: a small 1-D CNN over (3, 64) accelerometer windows in g.

The first layer is fixed: the per-axis first difference (jerk), which removes the gravity
component whatever the wrist's orientation. The rest is learned.
"""
import os

import torch
from torch import nn

from bandlab.synth import ACTIVITIES, RATE_HZ

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "stridenet.pt")


class JerkFrontEnd(nn.Conv1d):
    """x[t + 1] - x[t] per axis, scaled to g/s: a depthwise conv with fixed weights."""

    def __init__(self, axes=3):
        super().__init__(axes, axes, kernel_size=2, groups=axes, bias=False)
        with torch.no_grad():
            self.weight.copy_(torch.tensor([-1.0, 1.0]).repeat(axes, 1, 1) * RATE_HZ / 10.0)
        self.weight.requires_grad_(False)


def _unit(cin, cout, k, stride):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
                         nn.BatchNorm1d(cout), nn.ReLU())


class StrideNet(nn.Module):
    def __init__(self, classes=len(ACTIVITIES)):
        super().__init__()
        self.jerk = JerkFrontEnd()
        self.features = nn.Sequential(_unit(3, 16, 7, 1), _unit(16, 32, 5, 2), _unit(32, 32, 5, 2), _unit(32, 32, 3, 2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 8, 48), nn.ReLU(), nn.Linear(48, classes))

    def forward(self, window):
        return self.classifier(self.features(self.jerk(window)))


def load_stridenet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py`")
    net = StrideNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
