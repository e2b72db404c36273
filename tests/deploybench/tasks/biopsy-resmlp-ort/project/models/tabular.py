"""A residual MLP for the 30 biopsy measurements, built on a small class hierarchy: TabularNet
(input projection, head) and ScreeningNet (two pre-activation residual blocks in between)."""
import os

import torch
from torch import nn

STATE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "screening_state.pt")


class TabularNet(nn.Module):
    def __init__(self, features, width, classes):
        super().__init__()
        self.project = nn.Linear(features, width)
        self.head = nn.Linear(width, classes)

    def trunk(self, h):
        return h

    def forward(self, features):
        return self.head(torch.relu(self.trunk(self.project(features))))


class ResidualBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)

    def forward(self, h):
        return h + self.fc2(torch.relu(self.fc1(torch.relu(h))))


class ScreeningNet(TabularNet):
    def __init__(self, features=30, width=40, classes=2, depth=2):
        super().__init__(features, width, classes)
        self.blocks = nn.Sequential(*[ResidualBlock(width) for _ in range(depth)])

    def trunk(self, h):
        return self.blocks(h)


def load_screening_model(path=STATE):
    net = ScreeningNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
