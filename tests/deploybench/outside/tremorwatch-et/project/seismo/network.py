"""EventNet: automatic gain on the raw 3-component window, then a strided 1-D conv stack and a
small classifier head. Input: velocity (batch, 3, 400) in um/s, one window per call."""
import math
import os

import torch
from torch import nn

from .config import EVENT_CLASSES, NetConfig

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "eventnet.pt")


def _block(cin, cout, k):
    return nn.Sequential(nn.Conv1d(cin, cout, k, stride=2, padding=k // 2), nn.BatchNorm1d(cout), nn.ReLU())


class EventNet(nn.Module):
    def __init__(self, cfg: NetConfig = NetConfig()):
        super().__init__()
        self.cfg = cfg
        c = cfg.channels
        self.features = nn.Sequential(_block(3, c[0], 7), _block(c[0], c[1], 5), _block(c[1], c[2], 5), _block(c[2], c[3], 3))
        steps = cfg.station.window_samples
        for _ in range(4):
            steps = (steps + 1) // 2
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c[3] * steps, cfg.hidden), nn.ReLU(),
                                  nn.Linear(cfg.hidden, len(EVENT_CLASSES)))

    def forward(self, velocity):
        return self.head(self.features(self.condition(velocity)))

    def peak_velocity(self, velocity):
        """Peak ground velocity of each window over its three components: (batch, 1, 1)."""
        return velocity.abs().amax(dim=(1, 2), keepdim=True)

    def condition(self, velocity):
        """Automatic gain, chosen from the measured peak ground velocity."""
        g = self.cfg.gain
        pgv = self.peak_velocity(velocity)
        if pgv > g.strong_motion_um_s:
            unit = velocity / pgv
            limited = torch.tanh(g.knee * unit) / math.tanh(g.knee)
            out = limited * g.strong_level
        else:
            centred = velocity - velocity.mean(dim=-1, keepdim=True)
            out = centred / g.weak_ref_um_s
            out = out.clamp(-g.weak_limit, g.weak_limit)
        return out


def load_eventnet(path=WEIGHTS, cfg: NetConfig = NetConfig()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    net = EventNet(cfg)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
