"""Generalised-mean pooling with a learned exponent (Radenovic et al.): small defects occupy a
few cells of the last feature map, so plain averaging dilutes them; GeM with p ~ 3 leans towards
the strongest responses while staying smooth to train."""
import torch
import torch.nn.functional as F
from torch import nn


class GeMPool(nn.Module):
    def __init__(self, p: float = 3.0, eps: float = 1e-6, learn_p: bool = True):
        super().__init__()
        self.p = nn.Parameter(torch.full((1,), float(p)), requires_grad=learn_p)
        self.eps = eps

    def forward(self, fmap: torch.Tensor) -> torch.Tensor:
        pooled = F.avg_pool2d(fmap.clamp(min=self.eps).pow(self.p), (fmap.size(-2), fmap.size(-1)))
        return pooled.pow(1.0 / self.p).flatten(1)

    def extra_repr(self) -> str:
        return f"p={self.p.data.item():.3f}, eps={self.eps}"
