"""WaferPatternNet: map conditioner + a narrow timm ResNet (SE basic blocks)."""
import os

import torch
import torch.nn as nn
from timm.models.resnet import BasicBlock, ResNet

from .config import NetConfig
from .conditioning import DieMapConditioner

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "wafer_pattern.pt")


class WaferPatternNet(nn.Module):
    def __init__(self, cfg: NetConfig = NetConfig()):
        super().__init__()
        self.cfg = cfg
        self.conditioner = DieMapConditioner(cfg.conditioner)
        self.backbone = ResNet(
            block=BasicBlock,
            layers=cfg.blocks,
            in_chans=2,
            num_classes=cfg.num_classes,
            stem_width=cfg.stem_width,
            stem_type="deep",
            channels=cfg.channels,
            drop_rate=cfg.drop_rate,
            block_args=dict(attn_layer="se"),
        )

    def forward(self, wafer_map):
        planes = self.conditioner(wafer_map)
        return self.backbone(planes)


def build_net(weights=WEIGHTS):
    torch.manual_seed(0)
    net = WaferPatternNet()
    if weights is not None:
        net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net.eval()
