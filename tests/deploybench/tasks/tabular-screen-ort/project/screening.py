"""The tabular-screen model: a small MLP that scores a breast-cancer record (30 z-scored features)
as malignant (0) or benign (1).

The feature service sometimes passes through a raw measurement error as a z-score of 20 or more;
`_tame_outliers` clips the record to +/-LIMIT before the MLP when that happens. Records inside the
range go through unchanged (clipping them would be a no-op anyway).
"""
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINT = os.path.join(HERE, "screen_weights.pt")
FEATURES = 30


class OutlierTolerantMLP(nn.Module):
    LIMIT = 6.0

    def __init__(self, hidden=(32, 16)):
        super().__init__()
        layers, width = [], FEATURES
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.out = nn.Linear(width, 2)

    def _tame_outliers(self, z):
        worst = z.abs().max()
        if worst > self.LIMIT:
            bound = torch.full_like(z, self.LIMIT)
            z = torch.minimum(torch.maximum(z, -bound), bound)
        return z

    def forward(self, features):
        z = self._tame_outliers(features)
        return self.out(self.trunk(z))


def build(checkpoint=CHECKPOINT):
    if not os.path.isfile(checkpoint):
        raise FileNotFoundError(f"{checkpoint} missing: run `python train.py` (a few seconds)")
    net = OutlierTolerantMLP()
    net.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=True))
    net.eval()
    return net
