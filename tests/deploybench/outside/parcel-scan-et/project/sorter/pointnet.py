"""ParcelPointNet: a shared per-point MLP, a symmetric pooling over the points, and a small head.

The pooled descriptor does not depend on how many points the scan has, so one network serves
mailers (~120 points) and large boxes (~420 points) alike. The pooling is an average written as
a 4-D global average pool (channels, points, 1): the form XNNPACK runs as one kernel (amax or a
mean over dim 1 fall back to the portable CPU kernels).
"""
from torch import nn

from sorter.geometry import CLASSES


class PointwiseMLP(nn.Module):
    """The same MLP applied to every point: (B, N, 3) -> (B, N, width)."""

    def __init__(self, widths=(3, 32, 64, 96)):
        super().__init__()
        layers = []
        for cin, cout in zip(widths[:-1], widths[1:]):
            layers += [nn.Linear(cin, cout), nn.ReLU()]
        self.layers = nn.Sequential(*layers)

    def forward(self, points):
        return self.layers(points)


def pool_points(per_point):
    """(B, N, C) -> (B, C): the average over the N points, as a global average pool."""
    grid = per_point.transpose(1, 2).unsqueeze(-1)               # (B, C, N, 1)
    return grid.mean(dim=(-2, -1), keepdim=True).flatten(1)


class ParcelPointNet(nn.Module):
    def __init__(self, width=96, n_classes=len(CLASSES)):
        super().__init__()
        self.encoder = PointwiseMLP((3, 32, 64, width))
        self.head = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, points):
        per_point = self.encoder(points)      # (B, N, width)
        return self.head(pool_points(per_point))
