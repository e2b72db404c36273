"""The bay-number reader: a tiny timm ResNet built from slipcam.config.BACKBONE."""
import os

import torch
from timm.models.resnet import BasicBlock, ResNet

from slipcam.config import BACKBONE, WEIGHTS

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_backbone(cfg=BACKBONE):
    return ResNet(block=BasicBlock, layers=cfg.layers, channels=cfg.channels,
                  stem_width=cfg.stem_width, num_classes=cfg.num_classes, in_chans=cfg.in_chans)


def load_reader(path=None):
    """The trained reader in eval mode (aipc.toml `model`)."""
    path = path or os.path.join(_ROOT, WEIGHTS)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (under a minute)")
    net = build_backbone()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
