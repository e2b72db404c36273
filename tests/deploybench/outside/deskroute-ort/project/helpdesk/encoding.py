"""Ticket text -> the model's fixed-length int64 id / mask arrays."""
from dataclasses import dataclass, field

import numpy as np

from triage.vocabulary import PAD, Vocabulary


@dataclass
class EncodedBatch:
    input_ids: np.ndarray
    attention_mask: np.ndarray

    def as_feed(self):
        return (self.input_ids, self.attention_mask)


@dataclass
class TicketEncoder:
    vocab: Vocabulary = field(default_factory=Vocabulary)

    def encode(self, texts):
        n, L = len(texts), self.vocab.max_len
        ids = np.full((n, L), PAD, dtype=np.int64)
        mask = np.zeros((n, L), dtype=np.int64)
        for i, t in enumerate(texts):
            row = self.vocab.ids(t)
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        return EncodedBatch(ids, mask)
