"""Robust statistics used by the network's front end."""
import torch


def rank_across_scans(scans: torch.Tensor, rank: int) -> torch.Tensor:
    """Per spectral bin, the `rank`-th smallest value over the repeated scans.

    scans: (N, S, B) -- S exposures of the same flake, B bins. Returns (N, 1, B).

    A cosmic-ray hit or a dead pixel corrupts one bin of one exposure; an order statistic of the
    S exposures drops it where a mean would smear it into the spectrum.
    """
    values, _ = torch.kthvalue(scans, rank, dim=1)
    return values.reshape(scans.shape[0], 1, scans.shape[-1])  # a one-channel spectrum
