"""A wide two-hidden-layer MLP over the 64 pixel intensities of an 8x8 digit (GELU, LayerNorm)."""
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))


class WideMLP(nn.Module):
    def __init__(self, features=64, width=768, classes=10):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(features, width), nn.GELU(),
            nn.Linear(width, width), nn.LayerNorm(width), nn.GELU(),
        )
        self.head = nn.Linear(width, classes)

    def forward(self, pixels):
        return self.head(self.body(pixels))


def build():
    net = WideMLP()
    state = torch.load(os.path.join(HERE, "wide_mlp.pt"), weights_only=True)
    net.load_state_dict({k: v.float() for k, v in state.items()})
    return net.eval()
