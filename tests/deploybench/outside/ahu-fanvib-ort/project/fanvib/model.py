"""FanFaultNet: a small 1-D CNN over the three axes' log-amplitude spectra."""
import os

import torch
from torch import nn

from .signals import CLASSES

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "weights", "fanfault.pt")


class FanFaultNet(nn.Module):
    def __init__(self, n_classes: int = len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(3, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, spectrum: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(spectrum))


def load_fanfault(path: str = WEIGHTS) -> FanFaultNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = FanFaultNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
