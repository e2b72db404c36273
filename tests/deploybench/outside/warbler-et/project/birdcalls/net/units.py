"""Building blocks of CallNet.

The recorder classifies one clip at a time and the training clips vary a lot in loudness and
noise, so the units normalise with GroupNorm (independent of the batch, same in training and on
the device) rather than BatchNorm."""
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class UnitSpec:
    channels: int
    groups: int = 4
    pool: bool = False


class ConvUnit(nn.Module):
    """3x3 conv -> GroupNorm -> ReLU (-> 2x2 max-pool)."""

    def __init__(self, in_channels: int, spec: UnitSpec, eps: float = 1e-5):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, spec.channels, 3, padding=1, bias=False)
        self.groups = spec.groups
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(spec.channels))
        self.beta = nn.Parameter(torch.zeros(spec.channels))
        self.pool = nn.MaxPool2d(2) if spec.pool else nn.Identity()

    def _norm_act(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(F.group_norm(x, self.groups, self.gamma, self.beta, self.eps))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(self._norm_act(self.conv(x)))


class ResidualPair(nn.Module):
    """Two units with an identity shortcut (same width, no pooling inside)."""

    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.first = ConvUnit(channels, UnitSpec(channels, groups))
        self.second = ConvUnit(channels, UnitSpec(channels, groups))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.second(self.first(x))
