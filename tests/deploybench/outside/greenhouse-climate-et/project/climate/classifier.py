"""ClimateStateNet: a small 1-D conv + MLP over one standardised (4, 32) controller window."""
import os

import torch
from torch import nn

from climate.channels import CHANNELS, STATES, STEPS

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "artifacts", "climate_state.pt")


class ClimateStateNet(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.temporal = nn.Sequential(
            nn.Conv1d(len(CHANNELS), hidden, 5, padding=2), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, stride=2, padding=2), nn.ReLU(),
        )
        self.decide = nn.Sequential(
            nn.Flatten(), nn.Linear(hidden * STEPS // 2, 32), nn.ReLU(), nn.Linear(32, len(STATES)),
        )

    def forward(self, window):
        return self.decide(self.temporal(window))


def load_classifier(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (a few seconds)")
    net = ClimateStateNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
