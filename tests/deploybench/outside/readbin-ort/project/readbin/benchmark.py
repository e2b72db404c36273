"""The fixed benchmark the model is checked on: simulated 24-base reads, tokenized ([CLS] + 24
bases = 25 tokens, int64).
- example_read(): one benchmark read, (1, 25);
- benchmark(): ((token_ids (400, 25),), taxon labels (400,));
- calibration_reads(): 64 other 24-base reads, one input tuple each."""
from functools import lru_cache

import numpy as np
import torch

from readbin.alphabet import VOCAB
from readbin.taxa import simulate_reads

READ_LENGTH = 24


def tokenize(reads):
    return torch.from_numpy(np.stack([VOCAB.encode(r) for r in reads]))


@lru_cache(maxsize=1)
def _bench():
    reads, labels = simulate_reads(400, READ_LENGTH, seed=101)
    return tokenize(reads), torch.from_numpy(labels)


def benchmark():
    ids, labels = _bench()
    return (ids,), labels


def example_read():
    ids, _ = _bench()
    return (ids[:1].clone(),)


def calibration_reads(count=64):
    reads, _ = simulate_reads(count, READ_LENGTH, seed=102)
    ids = tokenize(reads)
    return [(ids[i:i + 1].clone(),) for i in range(count)]
