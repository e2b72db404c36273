"""PQNet: residual 1-D conv classifier of power-quality events.

Three residual stages halve the time axis each; after every stage the PeakLimiter settles the
stage's output. Swells, interruptions and capacitor-switching transients drive the activations
well past what a healthy feeder does, and the stages after them were never meant to see that
range (the fixed-point build of this network on the older monitors saturated there). The
limiter brings a window whose stage peak exceeds the ceiling back to the ceiling, body and skip
path alike, and leaves every other window of the batch untouched; when no window of the batch
is over, it skips the rescale.
"""
import os

import torch
from torch import nn

from .waveforms import EVENTS, PHASES

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "weights", "pqnet_r2.pt")


class ResidualStage(nn.Module):
    def __init__(self, c_in: int, c_out: int, k: int = 5):
        super().__init__()
        self.conv_a = nn.Conv1d(c_in, c_out, k, stride=2, padding=k // 2, bias=False)
        self.bn_a = nn.BatchNorm1d(c_out)
        self.conv_b = nn.Conv1d(c_out, c_out, k, padding=k // 2, bias=False)
        self.bn_b = nn.BatchNorm1d(c_out)
        self.shortcut = nn.Conv1d(c_in, c_out, 1, stride=2)

    def forward(self, x):
        body = torch.relu(self.bn_a(self.conv_a(x)))
        body = self.bn_b(self.conv_b(body))
        return body, self.shortcut(x)


class PeakLimiter(nn.Module):
    def __init__(self, ceiling: float = 3.0):
        super().__init__()
        self.register_buffer("ceiling", torch.tensor(ceiling))

    def settle(self, body, skip):
        merged = body + skip
        peak = merged.abs().amax(dim=(1, 2), keepdim=True)
        if (peak > self.ceiling).any():
            gain = torch.clamp(self.ceiling / peak, max=1.0)
            body = body * gain
            skip = skip * gain
        return torch.relu(body + skip)


class PQNet(nn.Module):
    def __init__(self, widths=(16, 24, 32, 48), classes: int = len(EVENTS)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(PHASES, widths[0], 7, padding=3, bias=False),
                                  nn.BatchNorm1d(widths[0]), nn.ReLU())
        self.stages = nn.ModuleList(ResidualStage(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.limiter = PeakLimiter()
        self.head = nn.Linear(2 * widths[-1], classes)

    def forward(self, volts):
        h = self.stem(volts)
        for stage in self.stages:
            body, skip = stage(h)
            h = self.limiter.settle(body, skip)
        pooled = torch.cat([h.mean(dim=-1), h.amax(dim=-1)], dim=1)
        return self.head(pooled)


def load_pqnet(path: str = WEIGHTS) -> PQNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = PQNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
