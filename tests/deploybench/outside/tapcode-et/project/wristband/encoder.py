"""TapEncoder: patches of the z-axis window -> tokens -> banded-attention blocks -> mean over
tokens -> gesture logits. `load_encoder()` is what the app and aipc.toml use."""
import os

import torch
from torch import nn

from .config import DEFAULT, EncoderConfig
from .layers import EncoderBlock, TokenNorm

CHECKPOINT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checkpoints", "tap_encoder.pt")


class PatchTokens(nn.Module):
    """(batch, 1, window) -> (batch, tokens, width): non-overlapping patches, a linear
    projection and a learned position embedding."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.patch = cfg.patch
        self.tokens = cfg.tokens
        self.project = nn.Linear(cfg.patch, cfg.width)
        self.position = nn.Parameter(torch.randn(1, cfg.tokens, cfg.width) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.project(x.reshape(x.shape[0], self.tokens, self.patch)) + self.position


class TapEncoder(nn.Module):
    def __init__(self, cfg: EncoderConfig = DEFAULT):
        super().__init__()
        self.cfg = cfg
        self.tokens = PatchTokens(cfg)
        self.blocks = nn.Sequential(*[
            EncoderBlock(cfg.width, cfg.heads, cfg.tokens, cfg.reach, cfg.mlp_ratio) for _ in range(cfg.depth)
        ])
        self.norm = TokenNorm(cfg.width)
        self.classify = nn.Linear(cfg.width, cfg.classes)

    @staticmethod
    def _token_mean(t: torch.Tensor) -> torch.Tensor:
        # mean over tokens as a 4-D spatial mean: XNNPACK's global average pooling takes it
        return t.transpose(1, 2).unsqueeze(-1).mean(dim=(2, 3), keepdim=True).flatten(1)

    def forward(self, window: torch.Tensor) -> torch.Tensor:
        return self.classify(self._token_mean(self.norm(self.blocks(self.tokens(window)))))


def load_encoder(path: str = CHECKPOINT) -> TapEncoder:
    net = TapEncoder()
    net.load_state_dict(torch.load(path, weights_only=True))
    return net.eval()
