"""A 1D CNN over 2,048-sample vibration windows: three strided conv layers (9, 7, 5 taps; 32, 64,
64 channels), the mean over time, a linear classifier of 5 machine conditions."""
import os

import torch
from torch import nn

SAVED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conditions_net.pt")


class ConditionsNet(nn.Module):
    def __init__(self, conditions=5):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 32, 9, stride=2, padding=4), nn.ReLU(),
            nn.Conv1d(32, 64, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(64, 64, 5, stride=2, padding=2), nn.ReLU(),
        )
        self.classify = nn.Linear(64, conditions)

    def forward(self, window):
        return self.classify(self.conv(window).mean(dim=-1))


def saved_model():
    net = ConditionsNet()
    net.load_state_dict(torch.load(SAVED, map_location="cpu", weights_only=True))
    return net.eval()
