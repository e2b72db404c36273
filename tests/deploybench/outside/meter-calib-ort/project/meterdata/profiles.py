"""Synthetic daily load profiles of commercial sites (fixed seeds, no download).

A day is 24 hourly readings in kWh: a base load plus one demand bump (opening hours, a
production shift, an evening peak) whose height sets the day's peak-to-average ratio. The
tariff tier is that ratio in bands: 0 flat (< 1.35), 1 moderate (1.6 - 2.0), 2 peaky (> 2.3);
days that fall between the bands are re-drawn, as the utility's labelled set has no borderline
days. Metering noise: 3 % multiplicative, 0.1 kWh additive.
"""
import numpy as np

HOURS = 24
TIERS = ("flat", "moderate", "peaky")
TARGET_RATIO = {0: (1.05, 1.3), 1: (1.6, 2.0), 2: (2.35, 2.9)}
BANDS = [(0.0, 1.35), (1.6, 2.0), (2.3, np.inf)]


def _tier_of(ratio):
    for tier, (lo, hi) in enumerate(BANDS):
        if lo <= ratio < hi:
            return tier
    return None


def _day(tier, rng):
    hours = np.arange(HOURS, dtype=np.float64)
    centre, width = rng.uniform(7, 21), rng.uniform(1.5, 3.0)
    bump = np.exp(-0.5 * ((hours - centre) / width) ** 2)
    m = bump.mean()
    r = rng.uniform(*TARGET_RATIO[tier])
    height = (r - 1) / (1 - r * m)              # (1 + h) / (1 + h * mean(bump)) = r
    shape = 1.0 + height * bump
    level = rng.uniform(3.0, 15.0)               # mean kWh per hour of the site
    kwh = level * shape / shape.mean()
    kwh = kwh * (1 + rng.normal(0, 0.03, HOURS)) + rng.normal(0, 0.1, HOURS)
    return np.clip(kwh, 0.0, None)


def daily_profiles(count, seed):
    """`count` days: float64 kWh (count, 24), and their tariff tiers."""
    rng = np.random.default_rng(seed)
    days, tiers = [], []
    while len(days) < count:
        wanted = int(rng.integers(0, len(TIERS)))
        kwh = _day(wanted, rng)
        tier = _tier_of(kwh.max() / max(kwh.mean(), 1e-6))
        if tier is None:
            continue
        days.append(kwh)
        tiers.append(tier)
    return np.stack(days), np.array(tiers, dtype=np.int64)
