"""The digits-unsupported-op model: digits-cnn's classifier behind a 3x3 median filter.

The filter (the project's choice, against salt-and-pepper scanner noise) takes the median of
each pixel's 3x3 neighbourhood with torch.median(dim=...). Neither exporter takes that op:
torch.onnx has no ONNX function for aten.median.dim, and it is not in ExecuTorch's Core ATen
opset; see README.md for the rewrite.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


def median3x3(x):
    """3x3 median filter with zero padding, per channel."""
    h, w = x.shape[-2:]
    xp = nn.functional.pad(x, (1, 1, 1, 1))
    neighbours = torch.stack([xp[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)])
    return neighbours.median(dim=0).values


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
        return self.classifier(self.features(median3x3(image)))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsCNN()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
