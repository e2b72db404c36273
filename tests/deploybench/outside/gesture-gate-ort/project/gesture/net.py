"""GestureNet: a small 1D CNN over accelerometer windows (3 axes x 64 samples) -> 5 gestures."""
import os

import torch
from torch import nn

from .blocks import ConvStage
from .config import DEFAULT, NetConfig

CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoints", "gesture_net.pt")


class GestureNet(nn.Module):
    def __init__(self, cfg: NetConfig = DEFAULT):
        super().__init__()
        self.cfg = cfg
        stages, cin = [], cfg.in_channels
        for spec in cfg.stages:
            stages.append(ConvStage(cin, spec.out_channels, spec.kernel, spec.stride, cfg.activation_limit))
            cin = spec.out_channels
        self.stages = nn.ModuleList(stages)
        steps = cfg.window
        for spec in cfg.stages:
            steps = (steps + spec.stride - 1) // spec.stride
        # whole-window pooling after the strided stages
        self.avg_pool = nn.AvgPool1d(steps)
        self.max_pool = nn.MaxPool1d(steps)
        self.dropout = nn.Dropout(cfg.dropout)
        self.head = nn.Linear(2 * cin, cfg.num_classes)

    def embed(self, window):
        h = window
        for stage in self.stages:
            h = stage(h)
        # mean and max over time: the mean keeps periodic gestures, the max keeps taps
        return torch.cat([self.avg_pool(h), self.max_pool(h)], dim=1).flatten(1)

    def forward(self, window):
        return self.head(self.dropout(self.embed(window)))


def build(cfg: NetConfig = DEFAULT) -> GestureNet:
    return GestureNet(cfg)


def load_pretrained(path: str = CHECKPOINT) -> GestureNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    net = build()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
