"""Self-attention restricted to a band of neighbouring tokens.

A tap lasts a few patches, and the gesture is decided by how taps follow each other within a
few hundred milliseconds, so each token only looks `reach` patches left and right. The band
is applied the usual way, as an additive bias on the attention scores (0 inside the band, a
large negative number outside), so the softmax gives far tokens no weight.

The projections are separate Linear layers and the heads are folded into the batch for
torch.bmm: that form lowers whole onto XNNPACK (a fused qkv split and 4-D matmuls do not).
"""
import torch
from torch import nn

# Large enough that exp() of it is 0 in float32, small enough to stay finite in fp16 too.
MASKED_SCORE = -1.0e4


def _band_bias(tokens: int, reach: int) -> torch.Tensor:
    """(tokens, tokens) additive attention bias: 0 where |i - j| <= reach, MASKED_SCORE elsewhere."""
    pos = torch.arange(tokens)
    far = (pos[:, None] - pos[None, :]).abs() > reach
    return torch.zeros(tokens, tokens).masked_fill(far, MASKED_SCORE)


class BandedSelfAttention(nn.Module):
    def __init__(self, width: int, heads: int, tokens: int, reach: int):
        super().__init__()
        if width % heads:
            raise ValueError(f"width {width} is not a multiple of heads {heads}")
        self.heads = heads
        self.head_width = width // heads
        self.scale = self.head_width ** -0.5
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width)
        self.value = nn.Linear(width, width)
        self.out = nn.Linear(width, width)
        self.register_buffer("band", _band_bias(tokens, reach), persistent=False)

    def _split_heads(self, t: torch.Tensor) -> torch.Tensor:
        b, n, _ = t.shape
        return t.reshape(b, n, self.heads, self.head_width).transpose(1, 2).reshape(b * self.heads, n, self.head_width)

    def _merge_heads(self, t: torch.Tensor, batch: int) -> torch.Tensor:
        _, n, _ = t.shape
        return t.reshape(batch, self.heads, n, self.head_width).transpose(1, 2).reshape(batch, n, -1)

    def _scores(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return torch.bmm(q * self.scale, k.transpose(1, 2)) + self.band

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = self._split_heads(self.query(x))
        k = self._split_heads(self.key(x))
        v = self._split_heads(self.value(x))
        weights = self._scores(q, k).softmax(dim=-1)
        return self.out(self._merge_heads(torch.bmm(weights, v), x.shape[0]))
