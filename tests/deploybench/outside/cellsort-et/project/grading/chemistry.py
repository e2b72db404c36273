"""A small NMC cell simulator (open-circuit voltage curve + ohmic and polarisation drop) that
stands in for the station recordings. Deterministic for a given numpy Generator."""
import numpy as np

from . import RATED_AH, SAMPLE_PERIOD_S, SAMPLES, SOH_EDGES


def ocv(soc):
    """Open-circuit voltage of an NMC 18650 versus state of charge (0..1)."""
    soc = np.clip(soc, 0.0, 1.0)
    return (3.42 + 0.72 * soc - 0.28 * np.exp(-18.0 * soc) + 0.06 * np.tanh(10.0 * (soc - 0.55))
            + 0.10 * np.maximum(soc - 0.8, 0.0) ** 2)


def grade_of(soh):
    for k, edge in enumerate(SOH_EDGES):
        if soh >= edge:
            return k
    return len(SOH_EDGES)


def charge_step(rng, soh):
    """(voltage V, current A) of one logged charge step of a cell with this state of health."""
    cap_ah = RATED_AH * soh
    r_ohm = 0.035 + 0.09 * (1.0 - soh) + rng.normal(0, 0.006)
    i_set = rng.choice([0.75, 1.0, 1.25, 1.5])                   # channel's programmed current
    soc0 = rng.uniform(0.05, 0.30)                               # cells arrive partly charged
    t = np.arange(SAMPLES) * SAMPLE_PERIOD_S
    # the channel ramps to its set point over the first ~40 s, with ripple
    current = i_set * (1.0 - np.exp(-t / 15.0)) + rng.normal(0, 0.01, SAMPLES)
    current[0] = 0.0
    q_ah = np.cumsum(current) * SAMPLE_PERIOD_S / 3600.0
    soc = soc0 + q_ah / cap_ah
    tau = 60.0 * (1.0 + 2.0 * (1.0 - soh))
    polar = current * (0.02 + 0.05 * (1.0 - soh)) * (1.0 - np.exp(-t / tau))
    voltage = ocv(soc) + current * r_ohm + polar + rng.normal(0, 0.002, SAMPLES)
    return voltage.astype(np.float32), current.astype(np.float32)


def simulate(n, seed, margin=0.03):
    """n cells with SoH spread over 0.6-1.0 (kept `margin` away from the grade edges, as the
    reference capacity test's own uncertainty would not label those cells reliably)."""
    rng = np.random.default_rng(seed)
    volts, amps, sohs = [], [], []
    while len(sohs) < n:
        soh = rng.uniform(0.60, 1.0)
        if min(abs(soh - e) for e in SOH_EDGES) < margin:
            continue
        v, i = charge_step(rng, soh)
        volts.append(v)
        amps.append(i)
        sohs.append(soh)
    sohs = np.array(sohs, dtype=np.float32)
    return np.stack(volts), np.stack(amps), sohs, np.array([grade_of(s) for s in sohs], dtype=np.int64)
