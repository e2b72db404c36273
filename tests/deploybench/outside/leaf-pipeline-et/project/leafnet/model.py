"""LeafClassifier: a tiny CNN for 3 x 16 x 16 leaf patches (about 10k parameters).

Three conv blocks from a config dict, then a global average pool and a linear head over the
four conditions. Takes float32 (N, 3, 16, 16), standardised per channel (leafnet.patches).
"""
from pathlib import Path

import torch
from torch import nn

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "leafnet.pt"

CONFIG = {
    "in_channels": 3,
    "blocks": [  # (out channels, pool after)
        (12, True),
        (24, True),
        (32, False),
    ],
    "conditions": 4,
}


class ConvBlock(nn.Sequential):
    def __init__(self, cin, cout, pool):
        layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
        if pool:
            layers.append(nn.MaxPool2d(2))
        super().__init__(*layers)


class LeafClassifier(nn.Module):
    def __init__(self, config=CONFIG):
        super().__init__()
        blocks, cin = [], config["in_channels"]
        for cout, pool in config["blocks"]:
            blocks.append(ConvBlock(cin, cout, pool))
            cin = cout
        self.features = nn.Sequential(*blocks)
        self.head = nn.Linear(cin, config["conditions"])

    def forward(self, patches):
        fmap = self.features(patches)
        return self.head(fmap.mean(dim=(2, 3)))


def load_classifier(path=WEIGHTS):
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} is missing: run `python train.py` first")
    net = LeafClassifier()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
