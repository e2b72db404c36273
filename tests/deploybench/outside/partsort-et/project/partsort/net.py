"""The sorter network: a small conv backbone and the prototype head."""
import os

import torch
from torch import nn

from .catalog import PARTS
from .metric import PrototypeHead

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "sorter.pt")


def _block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2))


class PartSorter(nn.Module):
    def __init__(self, width=16, embed=32):
        super().__init__()
        self.backbone = nn.Sequential(_block(1, width), _block(width, 2 * width), _block(2 * width, 2 * width),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, embed))
        self.head = PrototypeHead(embed, len(PARTS))

    def embed(self, patch):
        return self.backbone(patch)

    def forward(self, patch):
        return self.head(self.embed(patch))


def load_sorter(path=WEIGHTS):
    torch.manual_seed(0)
    model = PartSorter()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
