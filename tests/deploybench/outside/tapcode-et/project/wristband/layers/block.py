"""Pre-norm encoder block: banded attention and a GELU MLP, each behind a TokenNorm."""
import torch
from torch import nn

from .banded import BandedSelfAttention
from .norm import TokenNorm


class EncoderBlock(nn.Module):
    def __init__(self, width: int, heads: int, tokens: int, reach: int, mlp_ratio: int):
        super().__init__()
        self.norm_attn = TokenNorm(width)
        self.attn = BandedSelfAttention(width, heads, tokens, reach)
        self.norm_mlp = TokenNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, mlp_ratio * width), nn.GELU(), nn.Linear(mlp_ratio * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm_attn(x))
        return x + self.mlp(self.norm_mlp(x))
