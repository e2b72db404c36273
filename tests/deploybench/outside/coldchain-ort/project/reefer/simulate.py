"""Simulated reefer shipments (fixed seeds): the data logger's temperature trace, the door
openings and the payload, with the QA outcome the receiving desk recorded.

A logger samples every `interval_s` seconds (60, 120 or 300 depending on the gateway model).
Setpoint 2-5 °C; each door opening may start an excursion (the load warms towards ambient for a
few minutes to two hours, then the unit pulls it back down).
"""
from dataclasses import dataclass

import numpy as np

INTERVALS_S = (60, 120, 300)
OUTCOMES = ("accept", "inspect", "reject")


@dataclass
class Shipment:
    shipment_id: str
    interval_s: int
    temps_c: np.ndarray      # one reading every interval_s seconds
    door_openings: int
    payload_kg: float
    outcome: int = -1


def _trace(rng, interval_s, hours, doors):
    n = int(hours * 3600 // interval_s)
    setpoint = rng.uniform(2.0, 5.0)
    t = setpoint + rng.normal(0.0, 0.35, n) + 0.4 * np.sin(np.arange(n) * interval_s / 1800.0)
    episodes = rng.binomial(doors, 0.55) + rng.binomial(1, 0.25)
    for _ in range(episodes):
        start = rng.integers(0, max(n - 2, 1))
        minutes = rng.gamma(1.6, 14.0)
        length = max(1, int(minutes * 60 // interval_s))
        peak = rng.uniform(7.0, 15.0)
        ramp = np.minimum(1.0, np.arange(length) / max(1.0, length * 0.3))
        seg = setpoint + (peak - setpoint) * ramp
        end = min(n, start + length)
        t[start:end] = np.maximum(t[start:end], seg[: end - start])
    return t.astype(np.float32)


def _outcome(rng, temps, interval_s, doors, payload_kg):
    """QA outcome from the thermal history (a noisy version of the receiving desk's rules)."""
    minutes_above = np.count_nonzero(temps > 8.0) * interval_s / 60.0
    heat = minutes_above / 30.0 + 0.5 * max(0.0, temps.max() - 10.0) + 1.6 * max(0.0, temps.mean() - 4.5)
    heat *= 1.0 + 0.25 * (0.6 - payload_kg / 1000.0)   # light loads warm faster
    heat += rng.normal(0.0, 0.18)
    return 0 if heat < 0.9 else (1 if heat < 2.2 else 2)


def simulate(count, seed, prefix):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        interval_s = int(rng.choice(INTERVALS_S))
        hours = rng.uniform(6.0, 40.0)
        doors = int(rng.integers(0, 7))
        payload = float(rng.uniform(150.0, 950.0))
        temps = _trace(rng, interval_s, hours, doors)
        s = Shipment(f"{prefix}-{i:04d}", interval_s, temps, doors, payload)
        s.outcome = _outcome(rng, temps, interval_s, doors, payload)
        out.append(s)
    return out
