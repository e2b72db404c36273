"""RoomNet: (B, 1, 24, 32) frame in C -> (B, 5) room-state logits."""
import os

import torch
from torch import nn

from . import ROOM_STATES
from .ranging import SceneRanger

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "roomnet.pt")


def _stage(cin, cout, pool=True):
    layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


class RoomNet(nn.Module):
    def __init__(self, ranger: SceneRanger = None, width=16):
        super().__init__()
        self.ranger = ranger or SceneRanger()
        self.features = nn.Sequential(_stage(1, width), _stage(width, 2 * width), _stage(2 * width, 3 * width, pool=False))
        self.classify = nn.Linear(3 * width, len(ROOM_STATES))

    def forward(self, frame_c: torch.Tensor) -> torch.Tensor:
        rel = self.ranger(frame_c)
        h = self.features(rel)
        return self.classify(h.mean(dim=(-2, -1), keepdim=True).flatten(1))


def load_roomnet(path=WEIGHTS) -> RoomNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = RoomNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
