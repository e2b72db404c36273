"""Exposure-aware stem: a low-light branch (digital gain + its own filters, trained on dim
frames) and a normal branch; every frame is routed by its own brightness."""
import torch
from torch import nn

from .config import ExposureSpec


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(inplace=True))


class LowLightStem(nn.Module):
    def __init__(self, spec: ExposureSpec):
        super().__init__()
        self.gain = spec.low_light_gain
        self.body = conv_block(1, spec.stem_channels)

    def forward(self, frame):
        return self.body(frame * self.gain)


class ExposureRouter(nn.Module):
    def __init__(self, spec: ExposureSpec = ExposureSpec()):
        super().__init__()
        self.spec = spec
        self.low_light = LowLightStem(spec)
        self.normal = conv_block(1, spec.stem_channels)

    def brightness(self, frame):
        return frame.mean()

    def is_underexposed(self, frame):
        return self.brightness(frame) < self.spec.underexposed_below

    def route(self, frame):
        if self.is_underexposed(frame):
            return self.low_light(frame)
        return self.normal(frame)

    def forward(self, frames):
        """(N, 1, H, W) in [0, 1] -> (N, stem_channels, H, W), each frame through its branch."""
        return torch.cat([self.route(f) for f in frames.split(1)], dim=0)
