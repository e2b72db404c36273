"""The digits-gap model: a small convolutional classifier for 8x8 digit images with a global
average pooling head, as many CNNs end (ResNet, MobileNet).

conv(1->16) + BN + ReLU -> conv(16->32) + BN + ReLU -> max-pool 2 -> conv(32->64) + BN + ReLU
-> mean over height and width -> linear(64->10). About 24k parameters; `load_model()` reads
the weights train.py wrote.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


class DigitsGAP(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.classifier = nn.Linear(64, 10)

    def forward(self, image):
        x = self.features(image)
        x = x.mean(dim=(2, 3))
        return self.classifier(x)


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsGAP()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
