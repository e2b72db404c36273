"""TorqueFaultNet: an MLP over one 32-sample torque window.

The window is first brought to a common scale by `TraceNormalizer` (centred, divided by its
spread; a window quieter than the sensor's noise floor is divided by the floor instead, so
sensor noise on an idle drive is not blown up to full scale). The MLP sees the normalised
shape plus the window's mean torque (the load).
"""
from pathlib import Path

import torch
from torch import nn

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "torque_net.pt"


class TraceNormalizer(nn.Module):
    def __init__(self, floor=0.05, clip=4.0):
        super().__init__()
        self.floor = floor
        self.clip = clip

    def normalise(self, trace):
        centred = trace - trace.mean(dim=-1, keepdim=True)
        if bool((trace.std(dim=-1) < self.floor).any()):
            quiet = centred / self.floor
            return quiet.clamp(-self.clip, self.clip)
        spread = trace.std(dim=-1, keepdim=True)
        scaled = centred / spread
        return scaled.clamp(-self.clip, self.clip)

    def forward(self, trace):
        return self.normalise(trace)


class TorqueFaultNet(nn.Module):
    def __init__(self, window=32, hidden=64, conditions=4):
        super().__init__()
        self.normalizer = TraceNormalizer()
        self.mlp = nn.Sequential(
            nn.Linear(window + 1, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, conditions),
        )

    def forward(self, torque):
        shape = self.normalizer.normalise(torque)
        load = torque.mean(dim=-1, keepdim=True)
        return self.mlp(torch.cat([shape, load], dim=-1))


def load_net(path=WEIGHTS):
    net = TorqueFaultNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
