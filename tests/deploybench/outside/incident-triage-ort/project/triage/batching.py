"""Review-bench batching: sessions -> padded (ids, mask) tensors of one fixed width."""
from dataclasses import dataclass

import torch

from triage.events import VOCAB
from triage.sessions import MAX_EVENTS


@dataclass
class PaddedBatcher:
    width: int = MAX_EVENTS + 1       # [CLS] + the longest session

    def __call__(self, sessions):
        ids = torch.full((len(sessions), self.width), VOCAB.pad_id, dtype=torch.long)
        mask = torch.zeros((len(sessions), self.width), dtype=torch.long)
        for i, s in enumerate(sessions):
            tok = VOCAB.encode(s.events)[: self.width]
            ids[i, : len(tok)] = torch.tensor(tok)
            mask[i, : len(tok)] = 1
        return ids, mask
