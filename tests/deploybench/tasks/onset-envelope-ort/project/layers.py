"""Custom layers of the onset-envelope model."""
import torch
from torch import nn


class RunningPeak(nn.Module):
    """Appends the clip's running peak envelope (the largest |x| so far along time) as a second
    channel: (N, 1, T) -> (N, 2, T)."""

    def forward(self, clip):
        envelope, _ = torch.cummax(clip.abs(), dim=-1)
        return torch.cat([clip, envelope], dim=1)
