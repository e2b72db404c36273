"""The form-digits reader: an MLP over a flattened 8x8 box (64 pixels), organised as an
nn.ModuleDict of an encoder (64 -> 96 -> 48, ReLU6) and a classifier (48 -> 10)."""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reader_weights.pt")


class BoxReader(nn.Module):
    def __init__(self):
        super().__init__()
        self.parts = nn.ModuleDict({
            "encoder": nn.Sequential(nn.Linear(64, 96), nn.ReLU6(), nn.Linear(96, 48), nn.ReLU6()),
            "classifier": nn.Linear(48, 10),
        })

    def forward(self, boxes):
        return self.parts["classifier"](self.parts["encoder"](boxes))


def load_reader(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first (seconds)")
    reader = BoxReader()
    reader.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return reader.eval()
