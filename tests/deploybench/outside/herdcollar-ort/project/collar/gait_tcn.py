"""GaitTCN: a small 1-D convolutional classifier over one IMU window.

Input  `imu`: (batch, 6, 64) float32, standardised channels (ax, ay, az, gx, gy, gz) by time.
Output `behaviour_logits`: (batch, 4), see collar.motion.BEHAVIOURS.
"""
from pathlib import Path

import torch
from torch import nn

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "gait_tcn.pt"


class GaitTCN(nn.Module):
    def __init__(self, channels=6, n_classes=4):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(channels, 16, 5, padding=2), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=2, dilation=2), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, imu):
        return self.head(self.encoder(imu).mean(dim=-1))


def load_gait_tcn(path=WEIGHTS):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    net = GaitTCN()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
