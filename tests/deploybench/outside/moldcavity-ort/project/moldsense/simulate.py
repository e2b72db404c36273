"""Synthetic cavity-pressure cycles (bar) for the four part verdicts, as the DAQ records them.

A cycle: the flow front passes the sensor (a ramp during filling), the cavity fills and the
compression peak follows, the hold pressure decays until the gate freezes, then the part
cools.  The end-of-flow sensor sees the melt later and lower.
  good        peak 820-1000 bar, hold 55-75 % of the peak, gate freezes at 1.5-1.9 s
  short_shot  the cavity never fills: a low peak near the gate, the end of flow barely reached
  flash       an over-high peak, then a sudden drop when the parting line lifts
  sink        a normal peak, then low hold pressure and an early gate freeze: steep relief
"""
import numpy as np

from .config import SensorLayout


def _cycle(rng, label, t):
    flow_start = rng.uniform(0.12, 0.30)
    fill_time = rng.uniform(0.65, 0.85)
    full = flow_start + fill_time
    peak = rng.uniform(820, 1000)
    hold = rng.uniform(0.55, 0.75)
    tau_c = rng.uniform(0.12, 0.30)
    freeze = rng.uniform(1.5, 1.9)
    tau_cool = rng.uniform(0.25, 0.5)
    reach = rng.uniform(0.62, 0.80)           # end-of-flow peak / near-gate peak
    arrive = rng.uniform(0.55, 0.8) * fill_time
    drop, drop_at = 0.0, 0.0
    if label == 1:                            # short shot
        peak = rng.uniform(480, 760)
        reach = rng.uniform(0.03, 0.30)
        arrive = rng.uniform(0.85, 1.0) * fill_time
    elif label == 2:                          # flash
        peak = rng.uniform(1040, 1250)
        drop = rng.uniform(0.12, 0.30)
        drop_at = rng.uniform(0.03, 0.12)
    elif label == 3:                          # sink
        hold = rng.uniform(0.22, 0.42)
        freeze = rng.uniform(0.85, 1.25) + full - 1.0
        tau_c = rng.uniform(0.08, 0.2)
    rise = rng.uniform(0.04, 0.09)
    fill_p = rng.uniform(0.22, 0.36) * peak

    def trace(delay, gain):
        p = np.zeros_like(t)
        s = flow_start + delay
        ramp = (t >= s) & (t < full)
        p[ramp] = fill_p * gain * (t[ramp] - s) / max(full - s, 1e-3)
        comp = (t >= full) & (t < full + rise)
        p[comp] = fill_p * gain + (peak - fill_p) * gain * (t[comp] - full) / rise
        after = t >= full + rise
        ta = t[after] - (full + rise)
        top = peak * gain
        hp = top * (hold + (1 - hold) * np.exp(-ta / tau_c))
        if drop > 0:
            hp = np.where(ta >= drop_at, hp * (1 - drop), hp)
        fz = t[after] >= freeze
        if fz.any():
            p_frz = hp[fz][0]
            hp[fz] = p_frz * np.exp(-(t[after][fz] - freeze) / tau_cool)
        p[after] = hp
        return p

    gate = trace(0.0, 1.0)
    end = trace(arrive, reach)
    x = np.stack([gate, end])
    x = np.apply_along_axis(lambda r: np.convolve(r, np.ones(3) / 3, mode="same"), 1, x)
    x += rng.normal(0, rng.uniform(4, 10), x.shape) + rng.normal(0, 8, (2, 1))
    return x


def generate(n, seed, layout: SensorLayout = SensorLayout()):
    """n cycles -> (int16 DAQ codes (n, 2, samples), verdict labels (n,))."""
    rng = np.random.default_rng(seed)
    t = np.arange(layout.samples) / layout.rate_hz
    labels = rng.integers(0, 4, n)
    bar = np.stack([_cycle(rng, int(k), t) for k in labels])
    volts = bar * layout.volts_per_bar
    codes = np.clip(np.round(volts / 10.0 * 32768), -32768, 32767).astype(np.int16)
    return codes, labels.astype(np.int64)
