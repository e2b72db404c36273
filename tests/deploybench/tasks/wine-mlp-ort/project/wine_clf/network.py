"""A three-layer MLP for the 13 wine measurements, its layers in a ModuleDict and the forward
pass written with torch.nn.functional."""
import os

import torch
import torch.nn.functional as F
from torch import nn

PARAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "wine_mlp.pt")


class CultivarMLP(nn.Module):
    def __init__(self, features=13, hidden=48, cultivars=3):
        super().__init__()
        self.layers = nn.ModuleDict({
            "inp": nn.Linear(features, hidden),
            "mid": nn.Linear(hidden, hidden),
            "out": nn.Linear(hidden, cultivars),
        })

    def forward(self, measurements):
        h = F.relu(self.layers["inp"](measurements))
        h = F.relu(self.layers["mid"](h))
        return self.layers["out"](h)


def restore(path=PARAMS):
    net = CultivarMLP()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
