"""Tile defect classifier: exposure-aware stem -> small timm ResNet trunk -> defect logits."""
import os

import torch
from torch import nn
from timm.models.resnet import BasicBlock, ResNet

from .config import NetSpec
from .exposure import ExposureRouter

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "glaze_net.pt")


class GlazeDefectNet(nn.Module):
    def __init__(self, spec: NetSpec = NetSpec()):
        super().__init__()
        self.spec = spec
        self.stem = ExposureRouter(spec.exposure)
        self.trunk = ResNet(BasicBlock, [1, 1, 1, 1], num_classes=spec.num_classes,
                            in_chans=spec.exposure.stem_channels, stem_width=16,
                            channels=spec.stage_channels)

    def forward(self, image):
        return self.trunk(self.stem(image))


def build(spec: NetSpec = NetSpec()):
    torch.manual_seed(0)
    return GlazeDefectNet(spec)


def load(path=WEIGHTS, spec: NetSpec = NetSpec()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: run `python train.py` first")
    net = build(spec)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
