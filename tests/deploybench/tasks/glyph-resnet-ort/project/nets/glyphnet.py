"""GlyphNet: a small residual CNN for 8x8 glyph scans (one channel).

stem conv(1->12) -> two residual blocks (conv-BN-ReLU-conv-BN + identity) -> 1x1 conv to 24
channels with stride 2 -> flatten -> linear(24*4*4 -> 10).
"""
import os

import torch
from torch import nn

CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoints", "glyphnet.pt")


class ResidualUnit(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(width, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1, bias=False), nn.BatchNorm2d(width),
        )
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(x + self.body(x))


class GlyphNet(nn.Module):
    def __init__(self, width=12, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1), nn.ReLU())
        self.blocks = nn.ModuleList([ResidualUnit(width) for _ in range(2)])
        self.reduce = nn.Sequential(nn.Conv2d(width, 2 * width, 1, stride=2), nn.ReLU())
        self.head = nn.Linear(2 * width * 4 * 4, classes)

    def forward(self, scan):
        x = self.stem(scan)
        for block in self.blocks:
            x = block(x)
        return self.head(torch.flatten(self.reduce(x), 1))


def build_classifier(checkpoint=CHECKPOINT):
    net = GlyphNet()
    if not os.path.isfile(checkpoint):
        raise FileNotFoundError(f"{checkpoint} not found: run `python train.py` (seconds)")
    net.load_state_dict(torch.load(checkpoint, map_location="cpu", weights_only=True))
    return net.eval()
