"""Model-ready sets: normalised float32 (N, 24) inputs and tier labels."""
from functools import lru_cache

import torch

from .normalize import NORMALIZER
from .profiles import daily_profiles


def _prepare(kwh):
    return torch.from_numpy(NORMALIZER.transform(kwh))


def training_days(count=6000, seed=41):
    kwh, tiers = daily_profiles(count, seed)
    return _prepare(kwh), torch.from_numpy(tiers)


@lru_cache(maxsize=1)
def _test_days():
    kwh, tiers = daily_profiles(600, seed=42)
    return _prepare(kwh), torch.from_numpy(tiers)


def test_days():
    """((readings,), tiers) for 600 held-out days."""
    x, y = _test_days()
    return (x,), y


def first_day():
    """One held-out day, batch 1: what the tiering service runs per site and day."""
    x, _ = _test_days()
    return (x[:1].clone(),)
