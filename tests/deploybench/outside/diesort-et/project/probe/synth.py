"""Synthetic probe lots: wafer maps with the classic WM-811K failure signatures.

Each wafer is a (size, size) raster of prober bin codes (off-wafer / pass / fail). A wafer has a
random background fail density; about a third of the wafers come from "dense fail" lots whose
background fail density is 35..55 %, the rest 1..10 %. On top of that one spatial signature
(or none) is drawn.
"""
import numpy as np

from .config import BIN_FAIL, BIN_OFF_WAFER, BIN_PASS, PATTERNS, MapGeometry


def _grid(geo):
    t = (np.arange(geo.size) + 0.5) / geo.size * 2 - 1
    yy, xx = np.meshgrid(t, t, indexing="ij")
    return xx, yy, np.hypot(xx, yy)


def _signature(kind, rng, xx, yy, rr):
    if kind == "none":
        return np.zeros_like(rr)
    if kind == "center":
        return (rr < rng.uniform(0.22, 0.40)).astype(float)
    if kind == "edge_ring":
        return (rr > rng.uniform(0.78, 0.86)).astype(float)
    if kind == "donut":
        r0 = rng.uniform(0.38, 0.55)
        return (np.abs(rr - r0) < rng.uniform(0.08, 0.13)).astype(float)
    if kind == "scratch":
        ang = rng.uniform(0, np.pi)
        off = rng.uniform(-0.5, 0.5)
        nx, ny = -np.sin(ang), np.cos(ang)
        along = xx * np.cos(ang) + yy * np.sin(ang)
        c0 = rng.uniform(-0.4, 0.1)
        dist = np.abs(xx * nx + yy * ny - off)
        return ((dist < 0.045) & (along > c0) & (along < c0 + rng.uniform(0.6, 1.0))).astype(float)
    if kind == "local_cluster":
        a = rng.uniform(0, 2 * np.pi)
        rad = rng.uniform(0.3, 0.7)
        cx, cy = rad * np.cos(a), rad * np.sin(a)
        return (np.hypot(xx - cx, yy - cy) < rng.uniform(0.13, 0.22)).astype(float)
    raise ValueError(kind)


def make_lot(n, seed, geo=MapGeometry(), dense_share=0.35):
    """-> (bins uint8 (n, size, size), labels int64 (n,), dense bool (n,))."""
    rng = np.random.default_rng(seed)
    xx, yy, rr = _grid(geo)
    on = rr <= geo.wafer_radius
    bins = np.empty((n, geo.size, geo.size), np.uint8)
    labels = rng.integers(0, len(PATTERNS), n)
    dense = rng.random(n) < dense_share
    for i in range(n):
        bg = rng.uniform(0.35, 0.55) if dense[i] else rng.uniform(0.01, 0.10)
        sig = _signature(PATTERNS[labels[i]], rng, xx, yy, rr) * rng.uniform(0.75, 0.95)
        p = np.maximum(bg, sig)
        fail = rng.random(rr.shape) < p
        b = np.where(fail, BIN_FAIL, BIN_PASS).astype(np.uint8)
        b[~on] = BIN_OFF_WAFER
        bins[i] = b
    return bins, labels.astype(np.int64), dense
