"""WristNet: a small 1-D CNN over (batch, 6 channels, 64 samples) IMU windows in physical units
(g, rad/s), channels first as the training pipeline lays them out. Downsampling is by strided
convolutions (the phone's XNNPACK build runs them delegated)."""
from pathlib import Path

import torch
from torch import nn

from gaitband.synth import ACTIVITIES

WEIGHTS = Path(__file__).resolve().parent.parent / "wristnet.pt"


def _block(cin, cout, k, stride=1):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU())


class WristNet(nn.Module):
    def __init__(self, n_classes=len(ACTIVITIES)):
        super().__init__()
        self.stem = _block(6, 24, 5)
        self.body = nn.Sequential(_block(24, 32, 5, stride=2), _block(32, 48, 3, stride=2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(48 * 16, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, imu):
        return self.head(self.body(self.stem(imu)))


def load_wristnet(path=WEIGHTS):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = WristNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
