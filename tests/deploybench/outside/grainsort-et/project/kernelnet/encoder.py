"""Spectral encoder: three 1-D convolutions over the bands, then a projection to the embedding."""
import torch
from torch import nn

from .config import EncoderCfg


class ConvBlock(nn.Sequential):
    def __init__(self, cin, cout, k, stride):
        super().__init__(nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2, bias=False),
                         nn.BatchNorm1d(cout), nn.ReLU())


class SpectralEncoder(nn.Module):
    def __init__(self, bands: int, cfg: EncoderCfg = EncoderCfg()):
        super().__init__()
        w = cfg.widths
        self.blocks = nn.Sequential(
            ConvBlock(1, w[0], cfg.kernel, 1),
            ConvBlock(w[0], w[1], cfg.kernel, 2),
            ConvBlock(w[1], w[2], 3, 2),
        )
        self.project = nn.Linear(w[2] * (bands // 4), cfg.embed_dim)

    def forward(self, spectrum):
        h = self.blocks(spectrum)
        return self.project(torch.flatten(h, 1))
