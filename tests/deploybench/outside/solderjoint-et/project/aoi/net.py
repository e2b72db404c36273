"""JointNet: a MobileNetV2-style classifier of solder-joint crops (3 x 48 x 48, NCHW)."""
import os

import torch
from torch import nn

from .synth import CLASSES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "jointnet.pt")


def conv_bn(cin, cout, k=3, stride=1, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return nn.Sequential(*layers)


class SqueezeExcite(nn.Module):
    def __init__(self, ch, r=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(ch, ch // r, 1)
        self.fc2 = nn.Conv2d(ch // r, ch, 1)

    def forward(self, x):
        s = torch.relu(self.fc1(self.pool(x)))
        return x * torch.sigmoid(self.fc2(s))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand=4, se=False):
        super().__init__()
        mid = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            conv_bn(cin, mid, k=1),
            conv_bn(mid, mid, k=3, stride=stride, groups=mid),
            SqueezeExcite(mid) if se else nn.Identity(),
            conv_bn(mid, cout, k=1, act=False),
        )

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class JointNet(nn.Module):
    def __init__(self, num_classes=len(CLASSES)):
        super().__init__()
        self.stem = conv_bn(3, 16, stride=2)                       # 24x24
        self.stages = nn.Sequential(
            InvertedResidual(16, 16, 1),
            InvertedResidual(16, 24, 2),                           # 12x12
            InvertedResidual(24, 24, 1),
            InvertedResidual(24, 40, 2, se=True),                  # 6x6
            InvertedResidual(40, 40, 1, se=True),
            InvertedResidual(40, 64, 1),
        )
        self.head = conv_bn(64, 128, k=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.head(self.stages(self.stem(x)))
        return self.fc(self.drop(torch.flatten(self.pool(x), 1)))


def load_jointnet(path=WEIGHTS):
    torch.manual_seed(0)
    m = JointNet()
    m.load_state_dict(torch.load(path, map_location="cpu"))
    return m.eval()
