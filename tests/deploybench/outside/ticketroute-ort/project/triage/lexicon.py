"""The helpdesk's word inventory and a synthetic ticket generator (fixed seeds, no downloads).

Tickets are short bags of lower-case words; each queue has its own trigger words, and a ticket
belongs to the queue whose trigger words it mentions most (other queues' words appear as
distractors, the rest is filler chatter)."""
from dataclasses import dataclass

import numpy as np

QUEUES = ("billing", "outage", "access", "shipping")

TRIGGERS = {
    "billing": ["invoice", "refund", "charged", "payment", "receipt", "overcharge", "billing", "vat",
                "subscription", "card", "credit", "price"],
    "outage": ["down", "outage", "timeout", "crash", "error", "unreachable", "latency", "500",
               "offline", "degraded", "freeze", "broken"],
    "access": ["password", "login", "locked", "2fa", "reset", "sso", "permission", "account",
               "token", "signin", "username", "role"],
    "shipping": ["parcel", "delivery", "courier", "tracking", "shipment", "address", "late",
                 "package", "dispatch", "warehouse", "customs", "returned"],
}

_SYLL = ["ka", "lo", "mi", "ne", "ru", "ta", "po", "se", "vi", "da", "fu", "go", "he", "ji", "bo", "ze"]


def filler_words(n=320, seed=11):
    rng = np.random.default_rng(seed)
    seen, out = set(), []
    while len(out) < n:
        w = "".join(rng.choice(_SYLL, size=rng.integers(2, 4)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


@dataclass
class TicketSynth:
    """Draws tickets of `words` words; `seed` fixes the stream."""
    seed: int
    words: int = 60

    def draw(self, count):
        rng = np.random.default_rng(self.seed)
        fillers = filler_words()
        texts, labels = [], np.empty(count, dtype=np.int64)
        for i in range(count):
            q = int(rng.integers(len(QUEUES)))
            bag = list(rng.choice(TRIGGERS[QUEUES[q]], size=int(rng.integers(3, 7))))
            top = len(bag)
            for other in range(len(QUEUES)):
                if other != q and rng.random() < 0.6:
                    bag += list(rng.choice(TRIGGERS[QUEUES[other]], size=int(rng.integers(1, top - 1))))
            bag += list(rng.choice(fillers, size=self.words - len(bag)))
            rng.shuffle(bag)
            texts.append(" ".join(bag))
            labels[i] = q
        return texts, labels
