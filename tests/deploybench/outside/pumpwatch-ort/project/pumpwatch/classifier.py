"""PumpConditionNet: front end + small 1-D CNN over the level-normalised waveform, with the
log level as an extra feature, and the stopped-pump fallback."""
import os

import torch
from torch import nn

from . import AXES, CONDITIONS
from .frontend import PumpFrontEnd

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(os.path.dirname(HERE), "weights", "pumpwatch_v3.pt")
STOPPED = CONDITIONS.index("stopped")


class PumpConditionNet(nn.Module):
    def __init__(self, width: int = 24):
        super().__init__()
        self.front = PumpFrontEnd()
        self.body = nn.Sequential(
            nn.Conv1d(AXES, width, 7, stride=2, padding=3), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, 2 * width, 5, stride=2, padding=2), nn.BatchNorm1d(2 * width), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(2 * width + 1, 32), nn.ReLU(), nn.Linear(32, len(CONDITIONS)))
        stopped = torch.zeros(1, len(CONDITIONS))
        stopped[0, STOPPED] = 20.0
        self.register_buffer("stopped_logits", stopped)

    def run_network(self, wave, log_level):
        z = self.body(wave).mean(dim=-1)
        return self.head(torch.cat([z, log_level], dim=1))

    def forward(self, accel: torch.Tensor) -> torch.Tensor:
        wave, log_level, idle = self.front(accel)
        if idle.all():
            # pump is off on every window: nothing to classify, skip the CNN
            # (most of a night shift on the gateway's battery budget)
            return self.stopped_logits.expand(accel.shape[0], -1).clone()
        logits = self.run_network(wave, log_level)
        if idle.any():
            logits = torch.where(idle, self.stopped_logits, logits)
        return logits


def load_classifier(path: str = WEIGHTS) -> PumpConditionNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (a few seconds)")
    net = PumpConditionNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
