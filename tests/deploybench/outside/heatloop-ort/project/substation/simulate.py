"""Synthetic substation telemetry in the controller's units (degC, m3/h, %), one window per
record. Outdoor temperature sets the network's flow temperature and the building's setpoint;
the faults are small against that seasonal spread: a fouled exchanger loses 2-4 K on the
secondary side and returns 4-7 K hotter on the primary; a hunting valve oscillates; a drifting
return sensor ramps by 3-6 K over the window."""
import numpy as np

from .channels import WindowSpec

WIN = WindowSpec()


def window(condition, rng, n=WIN.minutes):
    t = np.arange(n)
    outdoor = rng.uniform(-12, 12)
    load = np.clip(0.5 - outdoor / 30 + rng.normal(0, 0.05), 0.1, 1.0)
    p_sup = 95 - 1.0 * (outdoor + 12) + rng.normal(0, 0.3, n)
    s_set = 72 - 0.9 * (outdoor + 12)
    s_sup = s_set + rng.normal(0, 0.2, n)
    s_ret = s_sup - rng.uniform(14, 22) * load - 6 + rng.normal(0, 0.2, n)
    approach = rng.uniform(3, 5)
    valve = 25 + 55 * load + rng.normal(0, 0.6, n)
    flow = 1.0 + 5.0 * load + rng.normal(0, 0.05, n)
    if condition == 1:
        s_sup = s_sup - rng.uniform(2, 4)
        approach += rng.uniform(4, 7)
    elif condition == 2:
        period, amp = rng.uniform(6, 12), rng.uniform(6, 12)
        wave = np.sin(2 * np.pi * t / period + rng.uniform(0, 6.3))
        valve = valve + amp * wave
        flow = flow + 0.06 * amp * wave
        s_sup = s_sup + 0.1 * amp * np.roll(wave, 2)
    elif condition == 3:
        s_ret = s_ret + np.linspace(0, rng.uniform(3, 6), n) * rng.choice([-1, 1])
    p_ret = s_ret + approach + rng.normal(0, 0.2, n)
    return np.stack([p_sup, p_ret, s_sup, s_ret, flow, valve])


def generate(n, seed):
    rng = np.random.default_rng(seed)
    conditions = rng.integers(0, 4, n)
    return np.stack([window(c, rng) for c in conditions]).astype(np.float32), conditions.astype(np.int64)
