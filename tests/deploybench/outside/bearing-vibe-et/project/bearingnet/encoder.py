"""The bearing condition network.

A strided 1-D conv trunk turns a (2, 128) accelerometer window into a 32-d embedding; a cosine
prototype head scores it against one learned prototype per condition. Cosine scores (rather
than a plain linear layer) keep the scores comparable across machines whose vibration level
differs by a gain, and let service add a prototype for a new fault without retraining the trunk.
"""
import os

import torch
import torch.nn.functional as F
from torch import nn

from bearingnet.synth import CONDITIONS

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "bearing_encoder.pt")


class CosinePrototypeHead(nn.Module):
    """scores[c] = scale * cos(embedding, prototype[c])."""

    def __init__(self, dim, n_classes, scale=12.0):
        super().__init__()
        self.prototypes = nn.Parameter(torch.randn(n_classes, dim) * 0.1)
        self.scale = scale

    def forward(self, embedding):
        unit = F.normalize(embedding, p=2.0, dim=1)
        protos = F.normalize(self.prototypes, p=2.0, dim=1)
        return self.scale * unit @ protos.t()


class BearingEncoder(nn.Module):
    def __init__(self, axes=2, window=128, embed_dim=32, n_classes=len(CONDITIONS)):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Conv1d(axes, 16, 9, stride=2, padding=4), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 24, 7, stride=2, padding=3), nn.BatchNorm1d(24), nn.ReLU(),
            nn.Conv1d(24, 32, 5, stride=2, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.embed = nn.Sequential(nn.Flatten(), nn.Linear(32 * (window // 8), embed_dim))
        self.head = CosinePrototypeHead(embed_dim, n_classes)

    def forward(self, accel):
        return self.head(self.embed(self.trunk(accel)))


def load_encoder(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (a few seconds)")
    model = BearingEncoder()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
