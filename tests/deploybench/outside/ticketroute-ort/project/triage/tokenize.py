"""Whitespace tokenizer of the triage model: fixed vocabulary, [CLS] first, padded to a fixed length."""
import numpy as np

from triage.lexicon import TRIGGERS, filler_words

PAD, CLS, UNK = 0, 1, 2
SEQ_LEN = 64


class DeskTokenizer:
    def __init__(self, seq_len=SEQ_LEN):
        words = [w for q in TRIGGERS.values() for w in q] + filler_words()
        self.vocab = {w: i + 3 for i, w in enumerate(words)}
        self.seq_len = seq_len

    @property
    def size(self):
        return len(self.vocab) + 3

    def ids(self, text):
        toks = [CLS] + [self.vocab.get(w, UNK) for w in text.lower().split()]
        toks = toks[: self.seq_len] + [PAD] * max(0, self.seq_len - len(toks))
        return np.asarray(toks, dtype=np.int64)

    def batch(self, texts):
        return np.stack([self.ids(t) for t in texts])
