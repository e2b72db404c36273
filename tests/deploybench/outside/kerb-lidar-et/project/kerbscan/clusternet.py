"""ClusterNet: a small PointNet-style classifier for LiDAR object clusters.

A shared per-point MLP (the same Linear layers applied to every point of the (n, 3) cloud)
lifts every point to 128 features; a max over the points gives one descriptor per cluster,
whatever its point count, and a two-layer head classifies it (kerbscan.synth.CLASSES).
"""
import os

import torch
from torch import nn

from kerbscan.synth import CLASSES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "clusternet_v3.pt")


def _point_layer(cin, cout):
    return nn.Sequential(nn.Linear(cin, cout), nn.ReLU())


class ClusterNet(nn.Module):
    def __init__(self, num_classes=len(CLASSES)):
        super().__init__()
        self.point_mlp = nn.Sequential(_point_layer(3, 32), _point_layer(32, 64), _point_layer(64, 128))
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, cloud):
        per_point = self.point_mlp(cloud)          # (batch, points, 128)
        descriptor = per_point.amax(dim=1)         # symmetric in the points, any count
        return self.head(descriptor)


def build_classifier(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (about half a minute)")
    net = ClusterNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
