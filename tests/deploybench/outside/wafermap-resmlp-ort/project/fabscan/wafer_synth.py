"""Synthetic wafer bin maps (fixed seed). A map is a 32x32 uint8 grid of die bins:
0 = no die (off the wafer), 1 = good die, 2 = failing die."""
import numpy as np

SIZE = 32
PATTERNS = ["none", "center", "edge_ring", "scratch", "donut", "edge_loc"]

_yy, _xx = np.mgrid[0:SIZE, 0:SIZE]
_R = np.hypot(_yy - (SIZE - 1) / 2, _xx - (SIZE - 1) / 2) / (SIZE / 2)
ON_WAFER = _R <= 1.0


def bin_map(rng, pattern):
    p_fail = np.full((SIZE, SIZE), rng.uniform(0.01, 0.06))
    if pattern == "center":
        p_fail += 0.85 * (_R < rng.uniform(0.25, 0.45))
    elif pattern == "edge_ring":
        p_fail += 0.8 * (_R > rng.uniform(0.78, 0.88))
    elif pattern == "donut":
        r0 = rng.uniform(0.4, 0.6)
        p_fail += 0.8 * (np.abs(_R - r0) < rng.uniform(0.08, 0.14))
    elif pattern == "scratch":
        theta = rng.uniform(0, np.pi)
        off = rng.uniform(-6, 6)
        d = np.abs((_xx - SIZE / 2) * np.sin(theta) - (_yy - SIZE / 2) * np.cos(theta) - off)
        along = (_xx - SIZE / 2) * np.cos(theta) + (_yy - SIZE / 2) * np.sin(theta)
        p_fail += 0.9 * ((d < 1.0) & (np.abs(along - rng.uniform(-3, 3)) < rng.uniform(11, 16)))
    elif pattern == "edge_loc":
        ang, rad = rng.uniform(0, 2 * np.pi), rng.uniform(0.75, 0.92) * SIZE / 2
        cy, cx = (SIZE - 1) / 2 + rad * np.sin(ang), (SIZE - 1) / 2 + rad * np.cos(ang)
        p_fail += 0.85 * (np.hypot(_yy - cy, _xx - cx) < rng.uniform(3.5, 5.0))
    fail = rng.random((SIZE, SIZE)) < np.clip(p_fail, 0, 1)
    return np.where(ON_WAFER, np.where(fail, 2, 1), 0).astype(np.uint8)


def labelled_maps(seed, per_class):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(PATTERNS)), per_class)
    rng.shuffle(labels)
    return np.stack([bin_map(rng, PATTERNS[k]) for k in labels]), labels.astype(np.int64)
