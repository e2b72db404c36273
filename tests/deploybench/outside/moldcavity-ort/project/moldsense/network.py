"""Cavity-pressure quality net: curve features -> three conv blocks -> part verdict logits."""
import os

import torch
from torch import nn

from .config import NetConfig
from .features import PeakHold

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "cavity_net.pt")


def conv_block(cin, cout, k, pool):
    layers = [nn.Conv1d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm1d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool1d(2))
    return nn.Sequential(*layers)


class CavityQualityNet(nn.Module):
    def __init__(self, cfg: NetConfig = NetConfig()):
        super().__init__()
        self.cfg = cfg
        n = len(cfg.layout.channels)
        w = cfg.widths
        self.curve = PeakHold()
        self.blocks = nn.Sequential(
            conv_block(3 * n, w[0], cfg.kernel, pool=True),
            conv_block(w[0], w[1], 5, pool=True),
            conv_block(w[1], w[2], 5, pool=False),
        )
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.verdict = nn.Linear(w[2], len(cfg.verdicts))

    def forward(self, pressure):
        h = self.blocks(self.curve(pressure))
        return self.verdict(self.pool(h).flatten(1))


def build_net(weights: str = WEIGHTS, cfg: NetConfig = NetConfig()) -> CavityQualityNet:
    if not os.path.isfile(weights):
        raise FileNotFoundError(f"{weights} missing: run `python train.py` (about a minute)")
    net = CavityQualityNet(cfg)
    net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net.eval()
