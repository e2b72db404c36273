"""The adapt-digits-dwsep backbone and head: a MobileNet-style network of depthwise-separable
blocks for 8x8 digit images.

backbone: conv(1->16) + BN + ReLU, then three blocks of depthwise conv 3x3 + BN + ReLU and
pointwise conv 1x1 + BN + ReLU (16 -> 32 -> 64 -> 128 channels, the second block with stride 2),
global average pool -> 128 features; head: linear(128 -> 5). `load_model()` reads the weights
train.py wrote (trained on the base classes 0-4).

Depthwise convolutions folded with their batch norms are the textbook case of a backbone that
loses accuracy under per-tensor INT8 weights: each channel has its own filter, and after folding
their ranges differ by orders of magnitude, so one scale for the tensor rounds the small
channels to a few levels.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


def _block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
    )


class DigitsDWSep(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            _block(16, 32, 1), _block(32, 64, 2), _block(64, 128, 1),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Linear(128, classes)

    def forward(self, image):
        return self.head(self.backbone(image))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsDWSep()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
