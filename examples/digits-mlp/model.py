"""The digits-mlp model: a multi-layer perceptron over the 64 pixels of an 8x8 digit image.

linear(64->128) + ReLU -> linear(128->64) + ReLU -> linear(64->10), about 17k parameters;
`load_model()` reads the weights train.py wrote.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


class DigitsMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, pixels):
        return self.layers(pixels)


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsMLP()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
