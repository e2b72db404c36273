"""HiveNet: a small 2-D conv net over (frames x mel bands), averaged over the whole recording,
so one set of weights reads 3-second and 8-second recordings alike."""
import os

import torch
from torch import nn

from .colony_sim import STATES

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "weights", "hivenet_2024.pt")


def _block(c_in, c_out, pool):
    layers = [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


class HiveNet(nn.Module):
    def __init__(self, widths=(16, 32, 48), states: int = len(STATES)):
        super().__init__()
        self.body = nn.Sequential(_block(1, widths[0], True), _block(widths[0], widths[1], True),
                                  _block(widths[1], widths[2], False))
        self.classify = nn.Linear(widths[2], states)

    def forward(self, mel):
        # mel: (recordings, 1, frames, 32); frames is whatever the recording lasted
        fmap = self.body(mel)
        return self.classify(fmap.mean(dim=(2, 3)))


def load_hivenet(path: str = WEIGHTS) -> HiveNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = HiveNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
