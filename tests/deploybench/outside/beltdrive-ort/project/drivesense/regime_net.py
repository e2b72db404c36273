"""RegimeNet: belt regime from one drive-end window.

Two descriptors feed the head: a small CNN's pooled features (the waveform's shape: harmonics,
distortion) and the drive pulley's speed in rpm, estimated from the window's zero crossings
(two per revolution of the fundamental): the same figure the drive's panel shows, computed in the
graph so the deployed model takes the raw window alone.
"""
import os

import torch
from torch import nn

from drivesense.belt_windows import FS, REGIMES

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regime_net.pt")


def pulley_rpm(window, fs=FS):
    """(batch, 1, n) -> (batch, 1): shaft speed in rpm from the sign changes along the window."""
    above = window > 0
    crossings = (above[..., 1:] != above[..., :-1]).float().sum(dim=-1)
    seconds = (window.shape[-1] - 1) / fs
    return crossings * (60.0 / (2.0 * seconds))


class RegimeNet(nn.Module):
    def __init__(self, classes=len(REGIMES)):
        super().__init__()
        self.shape = nn.Sequential(
            nn.Conv1d(1, 16, 9, stride=2, padding=4), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 24, 7, stride=2, padding=3), nn.BatchNorm1d(24), nn.ReLU(),
            nn.Conv1d(24, 24, 5, stride=2, padding=2), nn.BatchNorm1d(24), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(24 + 1, 32), nn.ReLU(), nn.Linear(32, classes))

    def forward(self, window):
        shape = self.shape(window).mean(dim=-1)                 # (batch, 24)
        rpm = pulley_rpm(window)                                # (batch, 1)
        return self.head(torch.cat([shape, rpm], dim=1))


def load_regime_net(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py`")
    net = RegimeNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
