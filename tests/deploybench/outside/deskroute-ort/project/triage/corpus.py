"""Synthetic ticket corpus (fixed seeds): stands in for the desk's labelled archive."""
import numpy as np

from .vocabulary import FILLER, QUEUE_TERMS, QUEUES


def make_tickets(n, seed):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for _ in range(n):
        q = int(rng.integers(len(QUEUES)))
        words = list(rng.choice(FILLER, size=int(rng.integers(8, 30))))
        own = rng.choice(QUEUE_TERMS[QUEUES[q]], size=int(rng.integers(2, 5)), replace=False)
        # one misleading word from another queue in half the tickets
        others = [x for x in range(len(QUEUES)) if x != q]
        noise = [rng.choice(QUEUE_TERMS[QUEUES[int(rng.choice(others))]])] if rng.random() < 0.5 else []
        for w in list(own) + noise:
            words.insert(int(rng.integers(len(words) + 1)), str(w))
        texts.append(" ".join(words))
        labels.append(q)
    return texts, np.asarray(labels, dtype=np.int64)
