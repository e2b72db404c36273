"""Synthetic line-scan tiles (8-bit counts) with the four surface states, fixed seeds.

Stands in for the labelled archive of the hot-strip mill's camera (not shippable).
"""
import numpy as np

from .config import DEFECTS, LineGeometry


def _texture(rng, n):
    base = rng.normal(140, 6)
    low = rng.normal(0, 1, (n // 8 + 2, n // 8 + 2))
    low = np.kron(low, np.ones((8, 8)))[:n, :n] * 4.0
    grain = rng.normal(0, 5.0, (n, n))
    streak = rng.normal(0, 2.0, (1, n))  # rolling direction is vertical
    return base + low + grain + streak


def _scratch(rng, img):
    n = img.shape[0]
    x = rng.integers(3, n - 3)
    w = rng.integers(1, 3)
    img[:, x:x + w] += rng.choice([-1, 1]) * rng.uniform(16, 26)


def _pitting(rng, img):
    n = img.shape[0]
    yy, xx = np.mgrid[:n, :n]
    for _ in range(rng.integers(3, 7)):
        cy, cx = rng.uniform(2, n - 2, 2)
        r = rng.uniform(0.9, 1.8)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] -= rng.uniform(22, 34)


def _edge_crack(rng, img):
    n = img.shape[0]
    for _ in range(rng.integers(2, 4)):
        y0, x0 = rng.uniform(4, n - 12, 2)
        L = rng.integers(7, 12)
        d = rng.choice([-1, 1])
        for t in range(L):
            y, x = int(y0 + t), int(x0 + d * t * 0.8)
            if 0 <= y < n and 0 <= x < n:
                img[y, x] -= rng.uniform(20, 30)


DRAW = {1: _scratch, 2: _pitting, 3: _edge_crack}


def make_tiles(n, seed, geometry: LineGeometry = LineGeometry()):
    """-> (tiles uint8 (n, px, px), positions mm float32 (n,), labels int64 (n,))."""
    rng = np.random.default_rng(seed)
    px = geometry.tile_px
    half = geometry.half_width_mm - px / 2
    tiles = np.empty((n, px, px), np.uint8)
    pos = np.empty(n, np.float32)
    labels = rng.integers(0, len(DEFECTS), n)
    for i, c in enumerate(labels):
        img = _texture(rng, px)
        if c:
            DRAW[int(c)](rng, img)
        tiles[i] = np.clip(np.rint(img), 0, 255).astype(np.uint8)
        if c == 3:
            p = rng.uniform(geometry.edge_band_mm, half)
        else:
            p = rng.uniform(0, half)
        pos[i] = p * rng.choice([-1, 1])
    return tiles, pos, labels.astype(np.int64)
