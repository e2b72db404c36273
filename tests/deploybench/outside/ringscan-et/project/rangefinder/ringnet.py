"""RingNet: a small 1D CNN over the 128-beam ring.

The scan is a closed ring (beam 127 is the neighbour of beam 0), so every convolution pads
circularly: a wall that straddles the seam behind the robot looks the same as one in front.
"""
import os

import torch
from torch import nn

from .worlds import BEAMS, PLACES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "ringnet_v3.pt")


class RingConv(nn.Module):
    """Conv1d + BN + ReLU with wrap-around padding (stride 2 halves the ring)."""

    def __init__(self, cin, cout, kernel=5, stride=2):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel, stride=stride, padding=kernel // 2,
                              padding_mode="circular", bias=False)
        self.bn = nn.BatchNorm1d(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class RingNet(nn.Module):
    def __init__(self, width=16, hidden=48, n_places=len(PLACES)):
        super().__init__()
        self.trunk = nn.Sequential(
            RingConv(1, width // 2),          # 128 -> 64
            RingConv(width // 2, width),      # 64 -> 32
            RingConv(width, width),           # 32 -> 16
        )
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(width * BEAMS // 8, hidden), nn.ReLU(),
            nn.Linear(hidden, n_places),
        )

    def forward(self, ranges):
        """ranges: (N, 1, 128) float32, metres / MAX_RANGE_M in [0, 1]. Returns place logits."""
        return self.head(self.trunk(ranges))


def load_ringnet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = RingNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
