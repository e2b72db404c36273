"""The digits-preprocess model: a small convolutional classifier for 8x8 digit images.

conv(1->8) + BN + ReLU -> conv(8->16) + BN + ReLU -> max-pool 2 -> linear(256->64) + ReLU ->
linear(64->10). About 18k parameters; `load_model()` reads the weights train.py wrote.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, image):
        return self.classifier(self.features(image))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsCNN()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
