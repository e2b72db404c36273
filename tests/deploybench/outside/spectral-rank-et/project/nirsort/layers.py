"""Layers of SpectrumNet."""
from torch import nn

from .robust import rank_across_scans


class ScanFusion(nn.Module):
    """(N, scans, bins) -> (N, 1, bins): one clean spectrum from the repeated exposures."""

    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def forward(self, scans):
        return rank_across_scans(scans, self.rank)

    def extra_repr(self):
        return f"rank={self.rank}"


class Frontend(nn.Module):
    """Scan fusion, then strided conv1d feature extraction."""

    def __init__(self, rank, channels):
        super().__init__()
        self.fusion = ScanFusion(rank)
        layers, cin = [], 1
        for cout in channels:
            layers += [nn.Conv1d(cin, cout, kernel_size=5, stride=2, padding=2), nn.BatchNorm1d(cout), nn.ReLU()]
            cin = cout
        self.features = nn.Sequential(*layers)

    def forward(self, scans):
        return self.features(self.fusion(scans))
