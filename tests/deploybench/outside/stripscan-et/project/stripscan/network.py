"""Tile classifier: a small timm ResNet whose pooled features are fused with where on the strip
the tile was cut.

Edge cracks only occur near the strip edges, pitting and scratches anywhere; the tile's
cross-width position (mm from the strip centreline, as the grabber tags it) is appended to the
pooled image features before the classifier (late metadata fusion).
"""
import os

import torch
from torch import nn
from timm.models.resnet import BasicBlock, ResNet

from .config import DEFECTS, LineGeometry

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "stripnet.pt")


def build_backbone():
    """timm ResNet-10-ish, 16..96 channels, pooled features out (no classifier)."""
    return ResNet(
        block=BasicBlock,
        layers=(1, 1, 1, 1),
        in_chans=1,
        num_classes=0,
        stem_width=16,
        channels=(16, 32, 64, 96),
    )


class FusionHead(nn.Module):
    """[pooled image features | position mm] -> defect logits."""

    def __init__(self, num_features, num_classes, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(num_features + 1, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, feats, pos_mm):
        z = torch.cat([feats, pos_mm], dim=1)
        return self.fc2(self.act(self.fc1(z)))


class StripDefectNet(nn.Module):
    def __init__(self, geometry: LineGeometry = LineGeometry()):
        super().__init__()
        self.geometry = geometry
        self.backbone = build_backbone()
        self.head = FusionHead(self.backbone.num_features, len(DEFECTS))

    def forward(self, tile, pos_mm):
        return self.head(self.backbone(tile), pos_mm)


def load_stripnet(path=WEIGHTS):
    torch.manual_seed(0)
    net = StripDefectNet()
    net.load_state_dict(torch.load(path, map_location="cpu"))
    return net.eval()
