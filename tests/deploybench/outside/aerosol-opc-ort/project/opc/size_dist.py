"""Synthetic OPC size spectra.

The counter sorts particles into 16 optical-diameter bins, log-spaced from 0.3 to 10 um, and
reports particle counts per litre of air in each bin. A spectrum is the sum of log-normal
modes: an urban background (always there) plus the regime's own modes.

    0 wood smoke   accumulation mode at 0.25-0.35 um, very high counts
    1 traffic      ultrafine mode below the counter's first bin (only its tail is seen) + road dust
    2 mineral dust coarse mode at 2-4 um
    3 sea spray    mode around 1 um, wide
    4 background   the urban background alone
"""
import numpy as np
from math import erf, log10, sqrt

BIN_EDGES_UM = np.geomspace(0.3, 10.0, 17)
SOURCES = ("wood_smoke", "traffic", "mineral_dust", "sea_spray", "background")


def _mode_counts(total, dg, sigma):
    """Counts per litre of one log-normal mode in each bin."""
    z = (np.log10(BIN_EDGES_UM) - log10(dg)) / (sqrt(2.0) * log10(sigma))
    cdf = 0.5 * (1.0 + np.array([erf(v) for v in z]))
    return total * np.diff(cdf)


def expected_spectrum(kind, rng):
    mean = _mode_counts(rng.uniform(2e3, 3e4), rng.uniform(0.12, 0.22), rng.uniform(1.5, 1.8))
    mean += _mode_counts(rng.uniform(3.0, 60.0), rng.uniform(1.5, 3.0), rng.uniform(1.6, 2.0))
    if kind == 0:
        mean += _mode_counts(rng.uniform(3e4, 4e5), rng.uniform(0.25, 0.35), rng.uniform(1.45, 1.7))
    elif kind == 1:
        mean += _mode_counts(rng.uniform(3e5, 3e6), rng.uniform(0.06, 0.1), rng.uniform(1.8, 2.1))
        mean += _mode_counts(rng.uniform(40.0, 400.0), rng.uniform(2.5, 4.0), rng.uniform(1.6, 1.9))
    elif kind == 2:
        mean += _mode_counts(rng.uniform(300.0, 5e3), rng.uniform(2.0, 4.0), rng.uniform(1.6, 2.0))
    elif kind == 3:
        mean += _mode_counts(rng.uniform(600.0, 8e3), rng.uniform(0.8, 1.3), rng.uniform(1.9, 2.3))
    return mean


def sample_spectrum(kind, rng):
    """Counts per litre (16,), as the counter reports them (one litre sampled: Poisson counts)."""
    return rng.poisson(expected_spectrum(kind, rng)).astype(np.int64)


def sample_set(n, seed, kinds=None):
    """n spectra, counts per litre (n, 16) int64, and their source labels."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % len(SOURCES) if kinds is None else np.resize(np.asarray(kinds), n)
    rng.shuffle(labels)
    return np.stack([sample_spectrum(int(k), rng) for k in labels]), labels.astype(np.int64)
