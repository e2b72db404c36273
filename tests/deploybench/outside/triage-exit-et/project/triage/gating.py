"""When the cascade may stop early: the quick exit's answer is used when its top softmax
probability reaches the configured confidence for every case in the request."""
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ExitPolicy:
    min_confidence: float

    def top_probability(self, logits: torch.Tensor) -> torch.Tensor:
        return torch.softmax(logits, dim=-1).amax(dim=-1)

    def settled(self, logits: torch.Tensor) -> torch.Tensor:
        """True (a 0-d bool tensor) when every case of the batch is confident enough."""
        return (self.top_probability(logits) >= self.min_confidence).all()
