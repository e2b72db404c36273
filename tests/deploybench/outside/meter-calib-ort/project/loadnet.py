"""LoadTierNet: 24 hourly readings (normalised) -> tariff tier logits (flat, moderate, peaky).

The network started as a regressor of the day's peak-to-average ratio (the same trunk with a
one-output head); billing only needs the tier, so the head now classifies the three bands.
"""
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINT = os.path.join(HERE, "checkpoints", "load_tier_net.pt")
ARCH = {"hours": 24, "width": 64, "depth": 2, "tiers": 3}


class LoadTierNet(nn.Module):
    def __init__(self, hours=24, width=64, depth=2, tiers=3):
        super().__init__()
        layers, cin = [], hours
        for _ in range(depth):
            layers += [nn.Linear(cin, width), nn.ReLU()]
            cin = width
        self.trunk = nn.Sequential(*layers)
        self.tier_head = nn.Linear(width, tiers)

    def forward(self, readings):
        return self.tier_head(self.trunk(readings))


def load_checkpoint(path=CHECKPOINT):
    net = LoadTierNet(**ARCH)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
