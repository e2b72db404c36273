"""Synthetic substation telemetry snapshots (fixed seeds, no download).

Each snapshot is 16 readings from a 132 kV feeder bay, in engineering units (FIELDS). Four
states: 0 normal, 1 voltage sag, 2 frequency excursion, 3 harmonic distortion (a converter
load injecting harmonics). The model takes the readings standardised with the fleet-wide
constants FIELD_MEAN / FIELD_STD (float32 (N, 16)); `standardise` is the one conversion used
everywhere (training, evaluation, calibration, the SCADA client).
"""
import numpy as np
import torch

FIELDS = (
    "v_ab_kv", "v_bc_kv", "v_ca_kv", "i_a_a", "i_b_a", "i_c_a", "freq_hz", "rocof_hz_s",
    "p_mw", "q_mvar", "pf", "thd_v_pct", "thd_i_pct", "v_neg_seq_pct", "i_zero_a", "xfmr_temp_c",
)
STATES = ("normal", "voltage_sag", "frequency_excursion", "harmonic_distortion")
FIELD_MEAN = np.array([131.0, 131.0, 131.0, 420.0, 420.0, 420.0, 50.0, 0.0,
                       85.0, 22.0, 0.95, 2.2, 6.0, 0.8, 6.0, 58.0], dtype=np.float32)
FIELD_STD = np.array([5.0, 5.0, 5.0, 120.0, 120.0, 120.0, 0.25, 0.08,
                      28.0, 9.0, 0.03, 1.4, 3.5, 0.5, 4.0, 9.0], dtype=np.float32)


def _snapshot(state, rng):
    load = rng.uniform(0.4, 1.3)
    v = 132.0 + rng.normal(0, 1.2, 3)
    i = 400.0 * load + rng.normal(0, 15, 3)
    f = 50.0 + rng.normal(0, 0.03)
    rocof = rng.normal(0, 0.01)
    pf = np.clip(rng.normal(0.955, 0.015), 0.85, 1.0)
    thd_v, thd_i = rng.uniform(1.0, 2.2), rng.uniform(3.0, 6.0)
    neg, i0, temp = rng.uniform(0.3, 0.9), abs(rng.normal(4, 2)), 45 + 20 * load + rng.normal(0, 3)
    if state == 1:  # sag: one or more phases drop, currents rise, unbalance
        depth = rng.uniform(1.5, 8.0)
        hit = rng.random(3) < 0.6
        hit[rng.integers(3)] = True
        v = v - depth * hit * rng.uniform(0.7, 1.0, 3)
        i = i * (1 + 0.08 * hit)
        neg += depth * 0.12
        i0 += depth * 0.6
    elif state == 2:  # frequency excursion: generation/load imbalance
        dev = rng.choice([-1, 1]) * rng.uniform(0.06, 0.9)
        f += dev
        rocof = -dev * rng.uniform(0.1, 0.3) + rng.normal(0, 0.01)
    elif state == 3:  # harmonics: converter load
        thd_v += rng.uniform(0.6, 3.0)
        thd_i += rng.uniform(1.5, 8.0)
        pf -= rng.uniform(0.02, 0.06)
        temp += rng.uniform(2, 8)
    s_mva = np.sqrt(3) * v.mean() * i.mean() / 1000.0
    p = s_mva * pf
    q = s_mva * np.sqrt(max(1 - pf ** 2, 0.0))
    return np.concatenate([v, i, [f, rocof, p, q, pf, thd_v, thd_i, neg, i0, temp]]).astype(np.float32)


def poll(count, seed):
    """`count` snapshots in engineering units: float32 (count, 16), and int64 states."""
    rng = np.random.default_rng(seed)
    states = rng.integers(0, len(STATES), size=count)
    return np.stack([_snapshot(int(s), rng) for s in states]), states.astype(np.int64)


def standardise(readings):
    return ((np.asarray(readings, dtype=np.float32) - FIELD_MEAN) / FIELD_STD).astype(np.float32)


def training_snapshots():
    x, y = poll(5000, seed=41)
    return torch.from_numpy(standardise(x)), torch.from_numpy(y)


def evaluation_snapshots():
    x, y = poll(1000, seed=42)
    return (torch.from_numpy(standardise(x)),), torch.from_numpy(y)


def example_snapshot():
    (x,), _ = evaluation_snapshots()
    return (x[:1].clone(),)


def calibration_snapshots(count=128):
    x, _ = poll(count, seed=43)
    z = torch.from_numpy(standardise(x))
    return [(z[i:i + 1].clone(),) for i in range(count)]
