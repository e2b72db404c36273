"""CurbSegNet: PointNet-style classifier over coordinates + covariance shape features."""
import os

import torch
import torch.nn as nn

from .geometry import LocalShapeDescriptor
from .settings import SegNetSettings

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "curbsegnet.pt")


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv1d(cin, cout, 1, bias=False), nn.BatchNorm1d(cout), nn.ReLU(inplace=True))


class PointResidual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv1d(c, c, 1, bias=False), nn.BatchNorm1d(c), nn.ReLU(inplace=True),
                                  nn.Conv1d(c, c, 1, bias=False), nn.BatchNorm1d(c))
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(x + self.body(x))


class CurbSegNet(nn.Module):
    def __init__(self, cfg: SegNetSettings = SegNetSettings()):
        super().__init__()
        self.cfg = cfg
        self.descriptor = LocalShapeDescriptor(cfg.descriptor)
        w1, w2, w3 = cfg.widths
        self.embed = conv_bn(3 + LocalShapeDescriptor.out_features, w1)
        self.block1 = PointResidual(w1)
        self.expand = conv_bn(w1, w2)
        self.block2 = PointResidual(w2)
        self.lift = conv_bn(w2, w3)
        self.head = nn.Sequential(
            nn.Linear(2 * w3, cfg.head), nn.LayerNorm(cfg.head), nn.GELU(), nn.Dropout(cfg.dropout),
            nn.Linear(cfg.head, cfg.num_classes))

    def forward(self, points):
        """points (B, 3, N): the segment's points in metres, centred on its centroid."""
        xyz = points.transpose(1, 2)
        shape = self.descriptor(xyz)
        x = self.embed(torch.cat([points, shape], dim=1))
        x = self.block2(self.expand(self.block1(x)))
        x = self.lift(x)
        pooled = torch.cat([x.amax(dim=2), x.mean(dim=2)], dim=1)
        return self.head(pooled)


def load_segnet(weights=WEIGHTS):
    torch.manual_seed(0)
    net = CurbSegNet()
    if weights is not None:
        net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net.eval()
