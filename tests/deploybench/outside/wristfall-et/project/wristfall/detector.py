"""The fall detector: kinematic features (integrated velocity) + a small 1-D conv net."""
import os

import torch
from torch import nn

from .config import DetectorConfig

CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoints", "detector.pt")


class KinematicFeatures(nn.Module):
    """(N, 6, T) IMU window -> (N, 9, T): acceleration, angular rate, and the velocity change
    since the start of the window (acceleration minus its first sample, integrated over time;
    gravity cancels as long as the wrist keeps its orientation, and a fall shows as a large
    velocity swing)."""

    def __init__(self, dt):
        super().__init__()
        self.dt = dt

    def forward(self, imu):
        acc = imu[:, :3]
        gyro = imu[:, 3:]
        dv = acc - acc[:, :, :1]
        velocity = torch.cumsum(dv, dim=-1) * (self.dt * 9.80665)   # m/s
        return torch.cat([acc, gyro, velocity], dim=1)


class FallDetector(nn.Module):
    def __init__(self, config: DetectorConfig = DetectorConfig()):
        super().__init__()
        self.config = config
        c1, c2 = config.stem_channels, config.body_channels
        self.features = KinematicFeatures(config.dt)
        self.encoder = nn.Sequential(
            nn.Conv1d(9, c1, 5, padding=2), nn.BatchNorm1d(c1), nn.ReLU(),
            nn.Conv1d(c1, c2, 5, stride=2, padding=2), nn.BatchNorm1d(c2), nn.ReLU(),
            nn.Conv1d(c2, c2, 5, stride=2, padding=2), nn.BatchNorm1d(c2), nn.ReLU(),
        )
        steps = (config.window + 3) // 4
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c2 * steps, config.hidden), nn.ReLU(),
                                  nn.Linear(config.hidden, config.num_classes))

    def forward(self, imu):
        return self.head(self.encoder(self.features(imu)))


def load_detector(path=CHECKPOINT, config: DetectorConfig = DetectorConfig()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    model = FallDetector(config)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
