"""Turns a case's standardised measurements into transformer tokens: every measurement gets its
own value direction and offset (feature tokenizer), and a learned summary token goes in front."""
import torch
from torch import nn


class MeasurementTokenizer(nn.Module):
    def __init__(self, features: int, width: int):
        super().__init__()
        self.direction = nn.Parameter(torch.randn(features, width) * 0.2)
        self.offset = nn.Parameter(torch.zeros(features, width))
        self.summary = nn.Parameter(torch.randn(1, 1, width) * 0.02)

    def forward(self, measurements: torch.Tensor) -> torch.Tensor:
        tokens = measurements.unsqueeze(-1) * self.direction + self.offset   # (N, F, W)
        summary = self.summary.expand(measurements.shape[0], -1, -1)
        return torch.cat([summary, tokens], dim=1)                          # (N, F + 1, W)
