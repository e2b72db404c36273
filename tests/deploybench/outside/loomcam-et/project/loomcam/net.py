"""FabricNet: timm MobileNetV3-Small (x0.5) trunk, GeM pooling, a linear defect head."""
import os

import timm
import torch
import torch.nn.functional as F
from torch import nn

from .pooling import GeMPool
from .weave import CLASSES

HERE = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = os.path.join(HERE, "..", "weights", "fabricnet.pt")


class ClampHardSigmoid(nn.Module):
    """hard-sigmoid written as clamp(x / 6 + 1/2, 0, 1): the same numbers as nn.Hardsigmoid, but
    a hardtanh the XNNPACK delegate takes, where nn.Hardsigmoid's decomposition left 18 constant
    casts of the squeeze-excite gates outside the delegate."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x * (1.0 / 6.0) + 0.5, 0.0, 1.0)


def _swap_se_gates(trunk: nn.Module) -> None:
    for mod in trunk.modules():
        if isinstance(getattr(mod, "gate", None), nn.Hardsigmoid):
            mod.gate = ClampHardSigmoid()


class FabricNet(nn.Module):
    def __init__(self, num_classes: int = len(CLASSES)):
        super().__init__()
        self.trunk = timm.create_model("mobilenetv3_small_050", pretrained=False,
                                       num_classes=0, global_pool="")
        _swap_se_gates(self.trunk)
        self.pool = GeMPool(p=3.0)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(self.trunk.num_features, num_classes))

    def forward(self, patch: torch.Tensor) -> torch.Tensor:
        return self.head(self.pool(self.trunk.forward_features(patch)))


def build_fabricnet(weights: str = WEIGHTS) -> FabricNet:
    net = FabricNet()
    if not os.path.isfile(weights):
        raise FileNotFoundError(f"{weights} missing: run `python train.py` (under a minute)")
    net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net.eval()
