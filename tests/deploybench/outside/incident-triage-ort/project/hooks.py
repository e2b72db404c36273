"""The entries aipc.toml [project] names."""
import torch

from triage.batching import PaddedBatcher
from triage.encoder import load_encoder
from triage.sessions import load_review_set


def encoder():
    return load_encoder()


def review_set():
    sessions = load_review_set()
    ids, mask = PaddedBatcher()(sessions)
    return (ids, mask), torch.tensor([s.incident for s in sessions])


def first_session():
    (ids, mask), _ = review_set()
    return ids[:1].clone(), mask[:1].clone()


def calibration_sessions():
    (ids, mask), _ = review_set()
    return [(ids[i:i + 1].clone(), mask[i:i + 1].clone()) for i in range(0, 128, 2)]
