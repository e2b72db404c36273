"""Spatial pooling of the trunk's feature map."""
import torch
from torch import nn

from .config import PoolConfig


def rank_select(values: torch.Tensor, rank_from_top: int) -> torch.Tensor:
    """The rank-th largest entry along the last dim (rank 1 = max)."""
    n = values.shape[-1]
    k = n - rank_from_top + 1  # kthvalue counts from the smallest
    return torch.kthvalue(values, k, dim=-1).values


class RankPool2d(nn.Module):
    """(B, C, H, W) -> (B, C): per channel, the rank-th largest response over H*W."""

    def __init__(self, cfg: PoolConfig):
        super().__init__()
        self.rank_from_top = cfg.rank_from_top

    def forward(self, fmap: torch.Tensor) -> torch.Tensor:
        cells = fmap.flatten(2)
        return rank_select(cells, self.rank_from_top)
