"""GradeNet: a small conv net over standardised 32x32 RGB crops -> logits over KINDS."""
import os

import torch
from torch import nn

from grader.scenes import KINDS

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "gradenet.pt")


def _block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class GradeNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.stem = _block(3, width)
        self.stage1 = nn.Sequential(_block(width, width * 2), nn.MaxPool2d(2))       # 16x16
        self.stage2 = nn.Sequential(_block(width * 2, width * 4), nn.MaxPool2d(2))   # 8x8
        self.stage3 = nn.Sequential(_block(width * 4, width * 4), nn.MaxPool2d(2))   # 4x4
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width * 4, len(KINDS))

    def forward(self, crop):
        x = self.stage3(self.stage2(self.stage1(self.stem(crop))))
        return self.fc(torch.flatten(self.pool(x), 1))


def load_gradenet(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first")
    net = GradeNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
