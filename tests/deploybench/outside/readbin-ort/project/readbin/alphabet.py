"""Base vocabulary and the read tokenizer: one token per base, a [CLS] token in front."""
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class BaseVocab:
    specials: tuple = ("[PAD]", "[CLS]")
    bases: str = "ACGTN"
    index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        table = {tok: i for i, tok in enumerate(self.specials)}
        table.update({b: len(self.specials) + i for i, b in enumerate(self.bases)})
        object.__setattr__(self, "index", table)

    @property
    def size(self) -> int:
        return len(self.index)

    @property
    def cls_id(self) -> int:
        return self.index["[CLS]"]

    def encode(self, read: str) -> np.ndarray:
        """'ACGT...' -> int64 ids ([CLS] + one per base); unknown letters read as N."""
        n = self.index["N"]
        return np.array([self.cls_id] + [self.index.get(b, n) for b in read.upper()], dtype=np.int64)


VOCAB = BaseVocab()
