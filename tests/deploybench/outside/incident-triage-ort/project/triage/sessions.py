"""On-call sessions: a simulator (training and the recorded review set) and the review set loader.

A session is the list of parsed log events the collector saw between the first alert and the
ack, 12 to 40 events long; its label is the incident kind the on-call engineer closed it as.
"""
import json
import os
from dataclasses import dataclass
from typing import List

import numpy as np

from triage.events import BACKGROUND, INCIDENTS, SIGNATURES, SYMPTOMS

SESSION_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sessions")
MIN_EVENTS, MAX_EVENTS = 12, 40


@dataclass
class Session:
    events: List[str]
    incident: int


def simulate(rng, incident):
    n = int(rng.integers(MIN_EVENTS, MAX_EVENTS + 1))
    events = list(rng.choice(BACKGROUND, size=n))
    sig = SIGNATURES[INCIDENTS[incident]]
    k = int(rng.integers(2, 4))                      # 2-3 signature events, the rest is noise
    for _ in range(k):
        events[int(rng.integers(0, n))] = str(rng.choice(sig))
    for _ in range(int(rng.integers(1, 4))):          # shared symptoms
        events[int(rng.integers(0, n))] = str(rng.choice(SYMPTOMS))
    if rng.random() < 0.25:                            # a decoy: another incident's event early on
        other = SIGNATURES[INCIDENTS[int(rng.integers(len(INCIDENTS)))]]
        events[int(rng.integers(0, n // 3))] = str(rng.choice(other))
    return Session([str(e) for e in events], incident)


def simulate_many(seed, n):
    rng = np.random.default_rng(seed)
    return [simulate(rng, i % len(INCIDENTS)) for i in range(n)]


def load_review_set(name="review_2025q1"):
    with open(os.path.join(SESSION_DIR, f"{name}.jsonl")) as f:
        return [Session(**json.loads(line)) for line in f]
