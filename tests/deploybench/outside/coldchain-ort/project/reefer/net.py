"""SpoilageNet: a small MLP over the six shipment features, with the feature scaling baked in
(the training set's mean and std, stored as buffers), so it takes features in their units."""
import os

import torch
from torch import nn

from reefer.featurize import FEATURES

CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "artifacts", "spoilage_mlp.pt")


class FeatureScaler(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n))
        self.register_buffer("std", torch.ones(n))

    def fit(self, x):
        self.mean.copy_(x.mean(0))
        self.std.copy_(x.std(0).clamp_min(1e-6))
        return self

    def forward(self, x):
        return (x - self.mean) / self.std


class SpoilageNet(nn.Module):
    def __init__(self, width=48, classes=3):
        super().__init__()
        self.scale = FeatureScaler(len(FEATURES))
        self.body = nn.Sequential(
            nn.Linear(len(FEATURES), width), nn.ReLU(),
            nn.Linear(width, width), nn.ReLU(),
            nn.Linear(width, classes),
        )

    def forward(self, features):
        return self.body(self.scale(features))


def restore(path=CHECKPOINT):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (seconds)")
    net = SpoilageNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
