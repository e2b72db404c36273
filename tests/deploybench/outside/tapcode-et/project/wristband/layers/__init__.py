from .banded import BandedSelfAttention
from .block import EncoderBlock
from .norm import TokenNorm

__all__ = ["BandedSelfAttention", "EncoderBlock", "TokenNorm"]
