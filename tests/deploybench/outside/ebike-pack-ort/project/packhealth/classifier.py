"""PackHealthNet: physical features, a small temporal CNN, mean over the window, 4 classes."""
import torch
from torch import nn

from packhealth.features import SagTracker
from telemetry.simulate import CLASSES


class PackHealthNet(nn.Module):
    def __init__(self, n_classes=len(CLASSES)):
        super().__init__()
        self.features = SagTracker()
        self.temporal = nn.Sequential(
            nn.Conv1d(5, 24, kernel_size=5, padding=2), nn.BatchNorm1d(24), nn.ReLU(),
            nn.Conv1d(24, 32, kernel_size=5, stride=2, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 32, kernel_size=3, padding=1), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, telemetry):
        h = self.temporal(self.features(telemetry))
        return self.head(h.mean(dim=-1))
