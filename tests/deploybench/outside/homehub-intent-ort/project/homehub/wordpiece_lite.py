"""A word-level tokenizer in the BERT id layout ([PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3).

The vocabulary lives in data/vocab.txt (one token a line, built from the training transcripts).
"""
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

VOCAB_FILE = Path(__file__).resolve().parent.parent / "data" / "vocab.txt"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
_WORD = re.compile(r"[a-z0-9']+")


@dataclass
class Encoded:
    input_ids: np.ndarray       # (batch, length) int64
    attention_mask: np.ndarray  # (batch, length) int64, 1 = real token


class WordTokenizer:
    def __init__(self, tokens):
        self.tokens = list(tokens)
        self.index = {t: i for i, t in enumerate(self.tokens)}

    @classmethod
    def from_file(cls, path=VOCAB_FILE):
        return cls(Path(path).read_text().split("\n")[:-1])

    @classmethod
    def build(cls, texts):
        words = sorted({w for t in texts for w in _WORD.findall(t.lower())})
        return cls(SPECIALS + words)

    def save(self, path=VOCAB_FILE):
        Path(path).write_text("\n".join(self.tokens) + "\n")

    def __len__(self):
        return len(self.tokens)

    def ids(self, text):
        body = [self.index.get(w, 1) for w in _WORD.findall(text.lower())]
        return [2] + body + [3]

    def encode_batch(self, texts, pad_to=None, max_length=48):
        """Pads to the longest transcript of the batch (or to pad_to); truncates at max_length."""
        seqs = [self.ids(t)[:max_length] for t in texts]
        width = pad_to or max(len(s) for s in seqs)
        ids = np.zeros((len(seqs), width), dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for row, s in enumerate(seqs):
            s = s[:width]
            ids[row, :len(s)] = s
            mask[row, :len(s)] = 1
        return Encoded(ids, mask)
