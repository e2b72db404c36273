"""HarbourListener: log band power -> two temporal convolutions -> mean over time -> 4 sources."""
from torch import nn

from hydro.bandpower import BandPower
from hydro.scene import CLASSES


class HarbourListener(nn.Module):
    def __init__(self, bands=16, width=32, n_classes=len(CLASSES)):
        super().__init__()
        self.frontend = BandPower(bands=bands)
        self.body = nn.Sequential(
            nn.Conv1d(bands, width, 3, padding=1), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 3, padding=1), nn.BatchNorm1d(width), nn.ReLU(),
        )
        self.head = nn.Linear(width, n_classes)

    def forward(self, wave):
        h = self.body(self.frontend(wave))
        return self.head(h.mean(dim=-1))
