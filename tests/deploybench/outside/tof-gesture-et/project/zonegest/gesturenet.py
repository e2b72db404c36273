"""GestureNet: the frames of a clip are the input channels of a small 2D CNN over the zones."""
import os

import torch
from torch import nn

from .sim import FRAMES, GESTURES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "gesturenet.pt")


class GestureNet(nn.Module):
    def __init__(self, frames=FRAMES, n_gestures=len(GESTURES)):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(frames, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        )
        self.classify = nn.Sequential(nn.Flatten(), nn.Linear(32 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, n_gestures))

    def forward(self, clip):
        """clip: (N, FRAMES, 8, 8) float32 in [0, 1] -> gesture logits (N, 6)."""
        return self.classify(self.features(clip))


def load_gesturenet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = GestureNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
