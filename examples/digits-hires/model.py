"""The digits-hires model: a convolutional classifier for 24x24 digit scans, wide enough that its
FP32 latency misses the project's budget on one CPU thread while its INT8 build meets it.

conv(1->32) + BN + ReLU -> conv(32->48) + BN + ReLU -> 2 x [conv(48->48) + BN + ReLU] ->
max-pool 2 -> max-pool 2 -> linear(48*6*6 -> 10). About 73k parameters, 33M multiply-adds per
image; `load_model()` reads the weights train.py wrote.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


def block(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]


class DigitsHires(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            *block(1, 32), *block(32, 48), *block(48, 48), *block(48, 48),
            nn.MaxPool2d(2), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(48 * 6 * 6, 10))

    def forward(self, image):
        return self.classifier(self.features(image))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (under a minute)")
    model = DigitsHires()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
