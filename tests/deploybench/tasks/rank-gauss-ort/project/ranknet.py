"""The rank-gauss model: percentile ranks -> normal scores (transforms.normal_scores) -> a
three-layer MLP (16 -> 48 -> 24 -> 4) written out layer by layer."""
import os

import torch
import torch.nn.functional as F
from torch import nn

from transforms import normal_scores

STATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranknet_state.pt")


class RankGaussNet(nn.Module):
    def __init__(self, features=16, classes=4):
        super().__init__()
        self.fc1 = nn.Linear(features, 48)
        self.fc2 = nn.Linear(48, 24)
        self.fc3 = nn.Linear(24, classes)

    def forward(self, ranks):
        h = normal_scores(ranks)
        h = F.relu(self.fc1(h))
        h = F.relu(self.fc2(h))
        return self.fc3(h)


def restore(state=STATE):
    if not os.path.isfile(state):
        raise FileNotFoundError(f"{state} missing: run `python train.py` first (seconds)")
    net = RankGaussNet()
    net.load_state_dict(torch.load(state, map_location="cpu", weights_only=True))
    return net.eval()
