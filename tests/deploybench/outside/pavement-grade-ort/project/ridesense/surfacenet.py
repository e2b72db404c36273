"""SurfaceNet: a small 1D CNN over a 0.64 s accelerometer window -> pavement grade logits."""
import os

import torch
from torch import nn

from .simulate import GRADES, WINDOW

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "surfacenet.pt")


class SurfaceNet(nn.Module):
    def __init__(self, n_grades=len(GRADES)):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(3, 16, 5, padding=2), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(32, 32, 5, stride=2, padding=2), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * WINDOW // 4, 32), nn.ReLU(), nn.Linear(32, n_grades))

    def forward(self, accel):
        """accel: (N, 3, 64) float32, g. Returns (N, 4) pavement grade logits."""
        return self.head(self.conv(accel))


def load_surfacenet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = SurfaceNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
