"""Configuration of the tap encoder. One frozen dataclass, shared by training, the loader and
the app, so the window geometry is defined in one place."""
from dataclasses import dataclass

GESTURES = ("idle", "tap", "double_tap", "slow_double", "triple_tap")


@dataclass(frozen=True)
class EncoderConfig:
    window: int = 128          # samples per window (100 Hz -> 1.28 s)
    patch: int = 4             # samples per token
    width: int = 32            # token width
    heads: int = 2
    depth: int = 2
    reach: int = 6             # a token attends to tokens at most `reach` patches away
    mlp_ratio: int = 2
    classes: int = len(GESTURES)

    @property
    def tokens(self) -> int:
        return self.window // self.patch


DEFAULT = EncoderConfig()
