"""The deployed network: grey patch (B, 1, 32, 32), standardised -> defect scores (B, 5)."""
import os

import torch
from torch import nn

from .config import InspectorConfig
from .metric_head import PrototypeHead
from .pooling import RankPool2d
from .trunk import build_trunk

PARAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "params", "inspector.pt")


class WeaveInspector(nn.Module):
    def __init__(self, cfg: InspectorConfig = InspectorConfig()):
        super().__init__()
        self.cfg = cfg
        self.trunk = build_trunk(cfg.trunk)
        self.pool = RankPool2d(cfg.pool)
        self.head = PrototypeHead(self.trunk.num_features, len(cfg.classes), cfg.head)

    def forward(self, patch: torch.Tensor) -> torch.Tensor:
        fmap = self.trunk.forward_features(patch)  # (B, C, 4, 4)
        return self.head(self.pool(fmap))


def load_inspector(path: str = PARAMS) -> WeaveInspector:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = WeaveInspector()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
