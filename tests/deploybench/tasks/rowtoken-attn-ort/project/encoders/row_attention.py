"""A one-layer pre-norm attention encoder over the 8 row tokens of a digit: token projection +
learned position embedding, single-head self-attention and a feed-forward block (each with a
LayerNorm and a residual), the mean over tokens, a linear classifier."""
import math
import os

import torch
from torch import nn

CKPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "row_attention.pt")


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(1, 2) * self.scale, dim=-1)
        return self.out(weights @ v)


class RowEncoder(nn.Module):
    def __init__(self, width=8, tokens=8, dim=32, classes=10):
        super().__init__()
        self.embed = nn.Linear(width, dim)
        self.position = nn.Parameter(torch.zeros(1, tokens, dim))
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attend = SelfAttention(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))
        self.classify = nn.Linear(dim, classes)

    def forward(self, rows):
        h = self.embed(rows) + self.position
        h = h + self.attend(self.norm1(h))
        h = h + self.ff(self.norm2(h))
        return self.classify(h.mean(dim=1))


def pretrained():
    net = RowEncoder()
    net.load_state_dict(torch.load(CKPT, map_location="cpu", weights_only=True))
    return net.eval()
