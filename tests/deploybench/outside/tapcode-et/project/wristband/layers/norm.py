"""LayerNorm over the token width, written with the ops XNNPACK takes.

nn.LayerNorm lowers to aten.native_layer_norm, which the XNNPACK partitioner does not claim: it
would run on the portable kernels between two delegate calls. Viewed as (batch, tokens, width, 1)
the mean over the width is a 4-D spatial mean, which XNNPACK runs as global average pooling, so
the whole normalisation stays inside the delegate. Numerically it is nn.LayerNorm."""
import torch
from torch import nn


class TokenNorm(nn.Module):
    def __init__(self, width: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))

    @staticmethod
    def _width_mean(t: torch.Tensor) -> torch.Tensor:
        return t.mean(dim=(2, 3), keepdim=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        t = x.reshape(b, n, d, 1)
        centred = t - self._width_mean(t)
        var = self._width_mean(centred * centred)
        return (centred * torch.rsqrt(var + self.eps)).reshape(b, n, d) * self.weight + self.bias
