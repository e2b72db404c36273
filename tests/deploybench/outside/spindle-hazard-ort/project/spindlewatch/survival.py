"""The hazard network: band energies -> probability of failing in each maintenance window.

A discrete-time survival head (a "logistic hazard" model): the trunk predicts, for each of the
first N_CLASSES-1 windows, the conditional probability h_k that the bearing fails in window k
given that it survived the windows before.  The probability of failing in window k is
h_k * prod_{j<k} (1 - h_j); the last class is surviving every window, prod_j (1 - h_j).
The output is that distribution (it sums to 1), which the maintenance planner consumes.
"""
import torch
from torch import nn

from .spectra import BANDS, N_CLASSES


class LogisticHazardHead(nn.Module):
    def __init__(self, width, windows):
        super().__init__()
        self.hazard = nn.Linear(width, windows - 1)

    def forward(self, z):
        h = torch.sigmoid(self.hazard(z))                   # (B, W-1) conditional hazards
        alive = torch.cumprod(1.0 - h, dim=1)                # S_k = P(survives windows 0..k)
        before = torch.cat([torch.ones_like(alive[:, :1]), alive[:, :-1]], dim=1)
        return torch.cat([h * before, alive[:, -1:]], dim=1)  # (B, W) failure-window pmf


class SpindleHazardNet(nn.Module):
    def __init__(self, bands=BANDS, width=64, windows=N_CLASSES):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(bands, width), nn.GELU(),
            nn.Linear(width, width), nn.GELU(),
        )
        self.head = LogisticHazardHead(width, windows)

    def forward(self, band_energy):
        return self.head(self.trunk(band_energy))
