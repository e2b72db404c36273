"""PQNet: adaptive smoother -> 1-D conv feature stack -> event logits."""
import os
from dataclasses import dataclass, field

import torch
from torch import nn

from .frontend import AdaptiveSmoother, SmootherConfig
from .waveforms import EVENTS

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "pqnet.pt")


@dataclass(frozen=True)
class PQNetConfig:
    widths: tuple = (16, 24, 32)
    kernel: int = 7
    smoother: SmootherConfig = field(default_factory=SmootherConfig)
    classes: int = len(EVENTS)


def _conv_stage(cin: int, cout: int, kernel: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(cin, cout, kernel, padding=kernel // 2), nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(4))


class PQNet(nn.Module):
    def __init__(self, cfg: PQNetConfig = PQNetConfig()):
        super().__init__()
        self.smoother = AdaptiveSmoother(cfg.smoother)
        stages, cin = [], 1
        for w in cfg.widths:
            stages.append(_conv_stage(cin, w, cfg.kernel))
            cin = w
        self.features = nn.Sequential(*stages)
        self.head = nn.Sequential(nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(cin, cfg.classes))

    def forward(self, voltage: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(self.smoother(voltage)))


def load_pqnet(path: str = WEIGHTS) -> PQNet:
    net = PQNet()
    net.load_state_dict(torch.load(path, weights_only=True))
    return net.eval()
