"""StrideNet: a small 1-D conv net over 2.56 s IMU windows."""
import os

import torch
from torch import nn

from imu.spec import ACTIVITIES, SPEC

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "stridenet.pt")


def _block(cin, cout, k, stride):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU())


class StrideNet(nn.Module):
    def __init__(self, channels=SPEC.channels, samples=SPEC.samples, classes=len(ACTIVITIES)):
        super().__init__()
        self.features = nn.Sequential(
            _block(channels, 24, 7, 2),
            _block(24, 32, 5, 2),
            _block(32, 32, 3, 2),
            nn.MaxPool1d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * (samples // 16), 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        return self.head(self.features(x))


def load_stridenet(path=WEIGHTS):
    net = StrideNet()
    net.load_state_dict(torch.load(path, map_location="cpu"))
    return net.eval()
