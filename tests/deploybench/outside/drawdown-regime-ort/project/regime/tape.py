"""Price tape: windows of 64 consecutive closes (one instrument, 5-minute bars).

Stored windows (tape/*.npz): closes float32 (N, 64) in the instrument's currency, regime int8 (N,),
symbol str (N,). The model takes each window relative to its first close, (N, 1, 64).
"""
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

TAPE_DIR = Path(__file__).resolve().parent.parent / "tape"
BARS = 64
REGIMES = ("uptrend", "range", "selloff", "crash_rebound", "crash")


@dataclass(frozen=True)
class TapeWindows:
    closes: np.ndarray   # (N, 64) float32, currency
    regime: np.ndarray   # (N,) int64
    symbol: np.ndarray   # (N,) str

    def relative(self) -> np.ndarray:
        """(N, 1, 64) float32: each window divided by its first close."""
        return np.ascontiguousarray((self.closes / self.closes[:, :1])[:, None, :], dtype=np.float32)


def _path(rng, regime):
    t = np.arange(BARS)
    vol = rng.uniform(0.002, 0.006)
    eps = rng.normal(0, vol, BARS)
    if regime == "uptrend":
        r = eps + rng.uniform(0.002, 0.005)
    elif regime == "range":
        x, r = 0.0, np.zeros(BARS)
        for i in range(BARS):
            step = -0.25 * x + eps[i]
            r[i], x = step, x + step
    elif regime == "selloff":
        r = eps - rng.uniform(0.002, 0.005)
    else:
        r = eps.copy()
        at = rng.integers(16, 36)
        depth = rng.uniform(0.06, 0.14)
        n = rng.integers(2, 5)
        r[at:at + n] -= depth / n
        if regime == "crash_rebound":
            back = rng.integers(12, BARS - at - n)
            r[at + n:at + n + back] += depth * rng.uniform(0.8, 1.0) / back
    r[0] = 0.0
    return np.exp(np.cumsum(r))


def synth_windows(n, seed):
    rng = np.random.default_rng(seed)
    regime = np.arange(n) % len(REGIMES)
    rng.shuffle(regime)
    level = rng.uniform(8, 400, n)
    closes = np.stack([_path(rng, REGIMES[k]) for k in regime]) * level[:, None]
    symbol = rng.choice(["ACX", "BRN", "DLT", "KVO", "MPL", "TRQ"], n)
    return TapeWindows(closes.astype(np.float32), regime.astype(np.int64), symbol)


@lru_cache(maxsize=2)
def load_tape(name: str) -> TapeWindows:
    with np.load(TAPE_DIR / f"{name}.npz") as z:
        return TapeWindows(z["closes"], z["regime"].astype(np.int64), z["symbol"])
