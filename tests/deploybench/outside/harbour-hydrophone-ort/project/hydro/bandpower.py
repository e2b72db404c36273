"""Band-power front end: a fixed bank of 16 Hann-windowed cosine filters (125 Hz apart, 0-2 kHz),
the power of each band, averaged over 4 frames, on a log scale. Part of the network so that the
buoy ships raw PCM and the same code runs in training and on the device."""
import math

import torch
from torch import nn


class BandPower(nn.Module):
    def __init__(self, rate=4000, bands=16, taps=64, hop=32, frames_per_cell=4, floor=1e-6):
        super().__init__()
        self.bank = nn.Conv1d(1, bands, taps, stride=hop, bias=False)
        n = torch.arange(taps, dtype=torch.float64)
        window = 0.5 - 0.5 * torch.cos(2 * math.pi * (n + 0.5) / taps)
        centres = (torch.arange(bands, dtype=torch.float64) + 0.5) * (rate / 2) / bands
        kernels = window * torch.cos(2 * math.pi * centres[:, None] * n / rate)
        kernels = kernels / kernels.norm(dim=1, keepdim=True)
        self.bank.weight.data.copy_(kernels[:, None, :].float())
        self.bank.weight.requires_grad_(False)
        self.cell = nn.AvgPool1d(frames_per_cell)
        self.floor = floor

    def band_power(self, wave):
        """(B, 1, S) -> (B, bands, cells): mean power of each band over each time cell."""
        z = self.bank(wave)
        return self.cell(z * z)

    def forward(self, wave):
        return torch.log(torch.clamp(self.band_power(wave), min=self.floor))
