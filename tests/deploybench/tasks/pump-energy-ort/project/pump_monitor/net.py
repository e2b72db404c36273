"""PumpNet: a small 1-D CNN over the waveform, and the window's vibration energy (the sum of
squares, as the maintenance team's threshold rule used it) as one more feature of the head."""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pump_net.pt")


class PumpNet(nn.Module):
    def __init__(self, conditions=3):
        super().__init__()
        self.waveform = nn.Sequential(
            nn.Conv1d(1, 12, 9, padding=4), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(12, 16, 9, padding=4), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.head = nn.Linear(16 + 1, conditions)

    def forward(self, window):
        energy = (window * window).sum(dim=(1, 2)).unsqueeze(1)
        return self.head(torch.cat([self.waveform(window), energy], dim=1))


def restore():
    net = PumpNet()
    net.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    return net.eval()
