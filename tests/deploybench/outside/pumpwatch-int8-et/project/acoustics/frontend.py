"""Log-power spectrogram computed inside the network, as two fixed convolutions (the real and
imaginary parts of a Hann-windowed DFT), so the whole pipeline runs on the accelerator."""
import math

import torch
from torch import nn

from .spec import SpectrumSpec


def dft_kernels(spec: SpectrumSpec):
    n = torch.arange(spec.frame, dtype=torch.float64)
    k = torch.arange(spec.bins, dtype=torch.float64)[:, None]
    window = 0.5 - 0.5 * torch.cos(2 * math.pi * n / spec.frame)
    phase = 2 * math.pi * k * n / spec.frame
    return (window * torch.cos(phase)).float()[:, None, :], (-window * torch.sin(phase)).float()[:, None, :]


class LogPowerSpectrum(nn.Module):
    def __init__(self, spec: SpectrumSpec = SpectrumSpec()):
        super().__init__()
        self.spec = spec
        self.real = nn.Conv1d(1, spec.bins, spec.frame, stride=spec.hop, bias=False)
        self.imag = nn.Conv1d(1, spec.bins, spec.frame, stride=spec.hop, bias=False)
        re, im = dft_kernels(spec)
        with torch.no_grad():
            self.real.weight.copy_(re)
            self.imag.weight.copy_(im)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, wave):
        """(N, 1, samples) in [-1, 1] -> (N, bins, frames) natural-log power."""
        re = self.real(wave)
        im = self.imag(wave)
        power = re * re + im * im
        return torch.log(power + self.spec.floor)
