"""SpectrumNet: repeated NIR scans of a flake -> polymer logits."""
import os

import torch
from torch import nn

from .layers import Frontend
from .settings import CONFIG

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SpectrumNet(nn.Module):
    def __init__(self, config=CONFIG):
        super().__init__()
        bins = config["bins"]
        for _ in config["channels"]:
            bins = (bins + 1) // 2
        self.frontend = Frontend(config["fusion_rank"], config["channels"])
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(config["channels"][-1] * bins, config["hidden"]),
            nn.ReLU(),
            nn.Linear(config["hidden"], len(config["polymers"])),
        )

    def forward(self, scans):
        return self.classifier(self.frontend(scans))


def weights_path(config=CONFIG):
    return os.path.join(ROOT, config["weights"])


def restore(config=CONFIG):
    """The trained network in eval mode (train.py writes the weights)."""
    path = weights_path(config)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: run `python train.py` first")
    net = SpectrumNet(config)
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
