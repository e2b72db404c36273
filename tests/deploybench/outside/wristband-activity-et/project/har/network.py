"""ActivityNet: a small 1-D CNN over one accelerometer window (3 axes x 64 samples, in g)."""
from pathlib import Path

import torch
from torch import nn

from har.sensors import ACTIVITIES, WINDOW

WEIGHTS_PATH = Path(__file__).resolve().parent.parent / "weights" / "activity_net.pt"


def _block(cin, cout, k, stride):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU())


class ActivityNet(nn.Module):
    def __init__(self, n_classes: int = len(ACTIVITIES), width: int = 24):
        super().__init__()
        self.stem = _block(3, width, 5, 1)
        self.body = nn.Sequential(_block(width, width, 5, 2), _block(width, 2 * width, 3, 2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * (WINDOW // 4), 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, accel):
        return self.head(self.body(self.stem(accel)))


def build_activity_net(weights: Path = WEIGHTS_PATH) -> ActivityNet:
    """The deployed network, weights loaded, in eval mode."""
    if not Path(weights).is_file():
        raise FileNotFoundError(f"{weights} missing: run `python train.py` (a few seconds)")
    net = ActivityNet()
    net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net.eval()
