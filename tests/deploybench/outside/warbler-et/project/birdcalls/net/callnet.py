"""CallNet: log-mel patch (1, 16, 32) -> call-type logits. Architectures are registered by
name; the recorder ships "callnet-s"."""
import os
from typing import Callable, Dict

import torch
from torch import nn

from ..audio import CALLS
from .units import ConvUnit, ResidualPair, UnitSpec

WEIGHTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "weights")
ARCHITECTURES: Dict[str, Callable[[], "CallNet"]] = {}


def register(name: str):
    def wrap(fn):
        ARCHITECTURES[name] = fn
        return fn
    return wrap


class CallNet(nn.Module):
    def __init__(self, stem: UnitSpec, stages, classes: int = len(CALLS)):
        super().__init__()
        layers, width = [ConvUnit(1, stem)], stem.channels
        for spec in stages:
            layers.append(ConvUnit(width, spec))
            width = spec.channels
            layers.append(ResidualPair(width, spec.groups))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(width, classes)

    def forward(self, logmel: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.features(logmel)).flatten(1))


@register("callnet-s")
def callnet_s() -> CallNet:
    return CallNet(UnitSpec(16, 4, pool=False), [UnitSpec(24, 4, pool=True), UnitSpec(32, 4, pool=True)])


def build(name: str = "callnet-s") -> CallNet:
    return ARCHITECTURES[name]()


def load_callnet(name: str = "callnet-s") -> CallNet:
    net = build(name)
    net.load_state_dict(torch.load(os.path.join(WEIGHTS_DIR, f"{name}.pt"), weights_only=True))
    return net.eval()
