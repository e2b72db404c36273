"""The adapt-digits-cnn backbone and head: a small convolutional network for 8x8 digit images.

backbone: conv(1->16) + BN + ReLU -> conv(16->32) + BN + ReLU -> max-pool 2 -> conv(32->64) + BN +
ReLU -> global average pool -> 64 features; head: linear(64 -> 5). `load_model()` reads the weights
train.py wrote (trained on the base classes 0-4).
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


class DigitsNet(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.head = nn.Linear(64, classes)

    def forward(self, image):
        return self.head(self.backbone(image))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsNet()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
