"""Curve features the process engineers read off a cavity-pressure trace.

For each sensor the net sees, beside the pressure itself:
  - the running peak (the highest pressure reached so far in the cycle: the compression
    peak is held once the cavity is full),
  - the relief below that peak (running peak - pressure: how far the pressure has fallen
    since the peak; sink marks show as an early, steep relief, flash as a sudden drop when
    the parting line lifts).
"""
import torch
from torch import nn


class PeakHold(nn.Module):
    """(batch, sensors, time) -> (batch, 3 * sensors, time): pressure, running peak, relief."""

    def __init__(self, time_dim: int = -1):
        super().__init__()
        self.time_dim = time_dim

    def running_peak(self, pressure: torch.Tensor) -> torch.Tensor:
        return torch.cummax(pressure, dim=self.time_dim).values

    def forward(self, pressure: torch.Tensor) -> torch.Tensor:
        peak = self.running_peak(pressure)
        relief = peak - pressure
        return torch.cat([pressure, peak, relief], dim=1)
