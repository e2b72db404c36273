"""Word-level tokenizer for syslog lines.

Volatile fields (numbers, addresses, hex ids, pids) are folded into placeholder tokens so that
the vocabulary stays small; the rest is lower-cased words and punctuation-free path parts.
"""
import json
import re
from collections import Counter

import numpy as np

from .settings import TokenizerSettings

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "<num>", "<ip>", "<hex>", "<mac>"]
PAD, UNK, CLS, SEP = 0, 1, 2, 3

_IP = re.compile(r"^\d{1,3}(\.\d{1,3}){3}(:\d+)?$")
_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
_HEX = re.compile(r"^(0x)?[0-9a-f]{6,}$")
_NUM = re.compile(r"^[-+]?\d+([.,:]\d+)*(%|c|ms|s|mb|gb|kb|rpm|v)?$")
_SPLIT = re.compile(r"[\s\[\]()=,;\"']+")


def words(line):
    out = []
    for raw in _SPLIT.split(line.lower()):
        raw = raw.strip(".:")
        if not raw:
            continue
        if _IP.match(raw):
            out.append("<ip>")
        elif _MAC.match(raw):
            out.append("<mac>")
        elif _HEX.match(raw):
            out.append("<hex>")
        elif _NUM.match(raw):
            out.append("<num>")
        else:
            out.extend(p for p in raw.split("/") if p)
    return out


class LineTokenizer:
    def __init__(self, vocab, settings: TokenizerSettings = TokenizerSettings()):
        self.vocab = vocab
        self.settings = settings

    @classmethod
    def build(cls, lines, settings: TokenizerSettings = TokenizerSettings()):
        counts = Counter(w for line in lines for w in words(line))
        vocab = {tok: i for i, tok in enumerate(SPECIALS)}
        for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            if c >= settings.min_count and w not in vocab:
                vocab[w] = len(vocab)
        return cls(vocab, settings)

    @classmethod
    def load(cls, settings: TokenizerSettings = TokenizerSettings()):
        with open(settings.vocab_file) as f:
            return cls(json.load(f), settings)

    def save(self):
        with open(self.settings.vocab_file, "w") as f:
            json.dump(self.vocab, f, indent=0)

    def ids(self, line):
        """Token ids of one line, [CLS] ... [SEP], cut at max_tokens."""
        body = [self.vocab.get(w, UNK) for w in words(line)][: self.settings.max_tokens - 2]
        return [CLS] + body + [SEP]

    def encode_batch(self, lines, width=None):
        """(ids, mask) int64 arrays of shape (len(lines), width), right-padded with [PAD].
        width defaults to max_tokens, the harness' fixed width."""
        width = width or self.settings.max_tokens
        ids = np.full((len(lines), width), PAD, dtype=np.int64)
        mask = np.zeros((len(lines), width), dtype=np.int64)
        for row, line in enumerate(lines):
            seq = self.ids(line)[:width]
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        return ids, mask

    def __len__(self):
        return len(self.vocab)
