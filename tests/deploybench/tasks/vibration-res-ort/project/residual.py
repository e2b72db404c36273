"""The vibration-res model: a small residual 1D CNN over a 2-axis vibration recording of any
length, (N, 2, samples): a conv1d stem, two residual blocks (conv-BN-ReLU-conv-BN plus the
skip), a global average over time and a linear head (healthy, imbalance, bearing)."""
import os

import torch
from torch import nn

CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vibration.pt")


class ResidualBlock1d(nn.Module):
    def __init__(self, width, kernel=5):
        super().__init__()
        pad = kernel // 2
        self.conv1 = nn.Conv1d(width, width, kernel, padding=pad, bias=False)
        self.bn1 = nn.BatchNorm1d(width)
        self.conv2 = nn.Conv1d(width, width, kernel, padding=pad, bias=False)
        self.bn2 = nn.BatchNorm1d(width)
        self.act = nn.ReLU()

    def forward(self, x):
        y = self.act(self.bn1(self.conv1(x)))
        return self.act(x + self.bn2(self.conv2(y)))


class VibrationNet(nn.Module):
    def __init__(self, axes=2, width=16, states=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(axes, width, 7, padding=3), nn.ReLU())
        self.blocks = nn.Sequential(ResidualBlock1d(width), ResidualBlock1d(width))
        self.head = nn.Linear(width, states)

    def forward(self, signal):
        x = self.blocks(self.stem(signal))
        return self.head(x.mean(dim=-1))


def load_vibration_net(path=CHECKPOINT):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first (under a minute)")
    net = VibrationNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
