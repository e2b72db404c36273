"""Synthetic mid-IR frames as the inline ATR probe records them (fixed seeds).

The probe's driver reports its native grid from high to low wavenumber (3200 -> 600 cm^-1, 1.5
cm^-1 steps) like most FTIR software; absorbance with a sloping baseline and scatter scale.
"""
import numpy as np

PROBE_WN = np.arange(3200.0, 600.0, -1.5)   # descending, as recorded

# (centre cm^-1, width, height) of the oil's main bands
BASE_BANDS = [(3006, 10, 0.10), (2924, 18, 1.00), (2853, 14, 0.70), (1745, 14, 1.10),
              (1465, 12, 0.35), (1377, 10, 0.20), (1238, 14, 0.25), (1160, 16, 0.55),
              (1098, 14, 0.25), (966, 8, 0.03), (722, 10, 0.30)]
# what each grade adds or changes (centre, width, extra height)
GRADE_BANDS = {
    0: [],
    1: [(3009, 8, 0.09), (1655, 10, 0.035), (914, 9, 0.04)],        # linoleic-rich seed oil
    2: [(1118, 10, 0.07), (1032, 12, 0.05), (2872, 8, 0.06)],       # hazelnut triacylglycerols
    3: [(1711, 10, 0.10), (966, 8, 0.05), (1398, 9, 0.04)],         # free acids, trans, refining
}


def _bands(wn, bands, rng, jitter=2.0):
    out = np.zeros_like(wn)
    for c, w, h in bands:
        c = c + rng.normal(0, jitter)
        out += h * rng.uniform(0.85, 1.15) * np.exp(-0.5 * ((wn - c) / w) ** 2)
    return out


def make_frames(n, seed):
    """-> (wavenumbers (M,) descending, absorbance (n, M), grades (n,))."""
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, n)
    wn = PROBE_WN
    frames = np.empty((n, wn.size))
    for i, g in enumerate(grades):
        level = rng.uniform(0.35, 1.0)                 # adulteration level
        a = _bands(wn, BASE_BANDS, rng)
        a += level * _bands(wn, GRADE_BANDS[int(g)], rng)
        a *= rng.uniform(0.6, 1.6)                     # path length / contact
        a += rng.uniform(-0.05, 0.05) + rng.uniform(-2e-5, 2e-5) * (wn - 1900)
        a += rng.normal(0, 0.006, wn.size)
        frames[i] = a
    return wn.copy(), frames.astype(np.float32), grades.astype(np.int64)
