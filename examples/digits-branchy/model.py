"""The digits-branchy model: digits-cnn's classifier with a polarity check in forward.

Some scanners deliver white-on-black digits; forward flips an image whose mean brightness is
above 0.5 back to the training polarity (strokes cover well under half of an 8x8 digit: the
mean of the evaluation images is 0.31, at most 0.40). The check is a Python `if` on a tensor
value, so torch.export cannot trace it (GuardOnDataDependentSymNode); see README.md.
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
        if image.mean() > 0.5:
            image = 1.0 - image
        return self.classifier(self.features(image))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsCNN()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
