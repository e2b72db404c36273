"""Synthetic vibration snapshots of spindle bearings, as the gateway's band-energy front end
reports them.

A snapshot is the energy of the accelerometer signal in BANDS equal-width frequency bands
(0 .. 12.8 kHz), as log10(energy).  A healthy bearing shows the machine's own roll-off; a
degrading outer race adds peaks at the defect frequency and its harmonics (with sidebands) and
raises the high-frequency noise floor.  How far along the degradation is sets the failure
window, the label (see WINDOWS).
"""
from dataclasses import dataclass

import numpy as np

BANDS = 40

# Failure windows, in weeks from the snapshot.  Window i means "fails within WINDOWS[i]";
# the last class means "survives the whole planning horizon".
WINDOWS = ("<1w", "1-2w", "2-4w", "4-8w", "8-16w", ">16w")
N_CLASSES = len(WINDOWS)

# Typical damage level of a bearing in each window (1.0: spalled race, days from seizure).
_DAMAGE = np.array([1.0, 0.72, 0.48, 0.30, 0.17, 0.05])

_DEFECT_BANDS = (5, 10, 15, 20, 25)  # outer-race defect frequency and harmonics


@dataclass
class FleetSample:
    energies: np.ndarray  # (n, BANDS) float32, log10 band energy
    window: np.ndarray    # (n,) int64, index into WINDOWS
    spindle: np.ndarray   # (n,) int64, which spindle the snapshot came from


def _defect_pattern():
    f = np.arange(BANDS)
    pat = np.zeros(BANDS)
    for k, b in enumerate(_DEFECT_BANDS):
        amp = 1.0 / (1.0 + 0.35 * k)
        pat += amp * np.exp(-0.5 * ((f - b) / 0.6) ** 2)
        pat += 0.35 * amp * np.exp(-0.5 * ((f - b - 2) / 0.6) ** 2)  # sidebands
        pat += 0.35 * amp * np.exp(-0.5 * ((f - b + 2) / 0.6) ** 2)
    return pat


def simulate_fleet(n, seed):
    """n snapshots from a simulated fleet; deterministic in seed."""
    rng = np.random.default_rng(seed)
    f = np.arange(BANDS) / BANDS
    window = rng.integers(0, N_CLASSES, size=n)
    spindle = rng.integers(0, 48, size=n)
    gain = np.exp(rng.normal(0.0, 0.25, size=(n, 1)))           # mounting / sensor gain
    corner = rng.uniform(0.18, 0.35, size=(n, 1))                # machine roll-off
    base = gain * (1.0 / (1.0 + (f / corner) ** 2) + 0.03)
    damage = _DAMAGE[window] * np.exp(rng.normal(0.0, 0.05, size=n))
    damage = damage[:, None]
    hf = np.clip((f - 0.6) / 0.4, 0, None) ** 1.5
    energy = base + gain * (2.5 * damage * _defect_pattern() + 1.2 * damage ** 2 * hf)
    energy *= rng.gamma(60.0, 1.0 / 60.0, size=energy.shape)   # estimator noise of a short snapshot
    return FleetSample(np.log10(energy).astype(np.float32), window.astype(np.int64), spindle.astype(np.int64))
