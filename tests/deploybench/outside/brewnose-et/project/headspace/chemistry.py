"""Synthetic sniff cycles: headspace gas mixtures of the four fermenter states, seen by eight MOX
elements of different selectivity, read by the board's dividers and ADC.

Gases (columns): ethanol, acetic acid / ethyl acetate, hydrogen sulphide, acetaldehyde, water.
"""
import numpy as np

from .board import BoardConfig

# element x gas sensitivity (per unit concentration) and power-law exponent
SENSITIVITY = np.array([
    [2.0, 0.8, 0.6, 1.2, 0.30],
    [1.5, 1.4, 0.4, 0.9, 0.25],
    [0.3, 0.2, 4.0, 0.3, 0.10],
    [0.9, 2.2, 0.5, 0.6, 0.35],
    [1.2, 0.5, 0.3, 2.4, 0.20],
    [0.5, 0.4, 2.6, 0.5, 0.15],
    [2.4, 1.0, 0.8, 1.6, 0.40],
    [0.4, 0.3, 1.8, 0.2, 0.50],
])
EXPONENT = np.array([0.62, 0.55, 0.70, 0.58, 0.65, 0.60, 0.50, 0.68])
R0_OHM = np.array([40e3, 25e3, 80e3, 30e3, 50e3, 60e3, 20e3, 90e3])


def _mixture(rng, state):
    eth = rng.uniform(0.7, 1.3)
    acet = rng.uniform(0.0, 0.08)
    h2s = rng.uniform(0.0, 0.04)
    ald = rng.uniform(0.05, 0.18)
    if state == 1:
        acet = rng.uniform(0.3, 0.9)
        eth = rng.uniform(0.5, 1.1)
    elif state == 2:
        h2s = rng.uniform(0.12, 0.45)
    elif state == 3:
        eth = rng.uniform(0.12, 0.4)
        ald = rng.uniform(0.3, 0.7)
    water = rng.uniform(0.2, 1.0)
    return np.array([eth, acet, h2s, ald, water])


def sniff_counts(rng, state, board: BoardConfig = BoardConfig()):
    t = np.arange(board.steps)
    p, e = board.purge_steps, board.exposure_steps
    tau_up, tau_down = rng.uniform(2.5, 6.0), rng.uniform(3.0, 7.0)
    profile = np.where(t < p, 0.0, 1 - np.exp(-(t - p) / tau_up))
    end = 1 - np.exp(-e / tau_up)
    profile = np.where(t >= p + e, end * np.exp(-(t - p - e) / tau_down), profile)
    conc = _mixture(rng, state)[:, None] * profile[None, :]                  # (gases, steps)
    conc[4] = conc[4] + rng.uniform(0.0, 0.3)                                # humidity also in purge air
    load = SENSITIVITY @ conc                                                # (elements, steps)
    drift = np.exp(rng.normal(0, 0.35, (len(R0_OHM), 1)))                    # unit-to-unit and ageing
    r_s = R0_OHM[:, None] * drift / (1 + load) ** EXPONENT[:, None]
    v = board.v_ref * board.r_load_ohm / (board.r_load_ohm + r_s)
    counts = np.round(v / board.v_ref * board.adc_max + rng.normal(0, 1.5, v.shape))
    return np.clip(counts, 0, board.adc_max).astype(np.uint16)


def generate(n, seed, board: BoardConfig = BoardConfig()):
    """n sniff cycles -> (uint16 counts (n, elements, steps), fermenter state (n,))."""
    rng = np.random.default_rng(seed)
    states = rng.integers(0, 4, n)
    return np.stack([sniff_counts(rng, int(s), board) for s in states]), states.astype(np.int64)
