"""Part catalogue and the synthetic camera captures (fixed seeds)."""
import numpy as np

PARTS = ("washer", "hex_nut", "bracket", "pin", "spacer", "clip")
SIZE = 32


def _draw(kind, rng):
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    cy, cx = SIZE / 2 + rng.uniform(-3, 3, 2)
    r = np.hypot(yy - cy, xx - cx)
    a = np.arctan2(yy - cy, xx - cx) + rng.uniform(0, np.pi)
    s = rng.uniform(0.85, 1.15)
    if kind == "washer":
        m = (r < 11 * s) & (r > 5 * s)
    elif kind == "hex_nut":
        hexr = 10 * s * np.cos(np.pi / 6) / np.cos((a % (np.pi / 3)) - np.pi / 6)
        m = (r < hexr) & (r > 4 * s)
    elif kind == "bracket":
        u, v = (xx - cx) * np.cos(a[0, 0]) + (yy - cy) * np.sin(a[0, 0]), -(xx - cx) * np.sin(a[0, 0]) + (yy - cy) * np.cos(a[0, 0])
        m = ((np.abs(u) < 10 * s) & (np.abs(v - 6 * s) < 2.5)) | ((np.abs(v) < 8 * s) & (np.abs(u + 8 * s) < 2.5))
    elif kind == "pin":
        u = (xx - cx) * np.cos(a[0, 0]) + (yy - cy) * np.sin(a[0, 0])
        v = -(xx - cx) * np.sin(a[0, 0]) + (yy - cy) * np.cos(a[0, 0])
        m = (np.abs(u) < 12 * s) & (np.abs(v) < 1.8)
    elif kind == "spacer":
        m = r < 7 * s
    else:  # clip
        m = (r < 10 * s) & (r > 7 * s) & (np.cos(a - a[0, 0]) < 0.6)
    return m.astype(np.float32)


def capture(n, seed):
    """uint8 frames (n, 32, 32) as the line camera delivers them, and labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(PARTS), n)
    frames = np.empty((n, SIZE, SIZE), np.uint8)
    for i, k in enumerate(labels):
        img = 0.15 + 0.65 * rng.uniform(0.7, 1.0) * _draw(PARTS[k], rng)
        img += rng.normal(0, 0.05, img.shape)
        frames[i] = np.clip(img * 255, 0, 255).astype(np.uint8)
    return frames, labels.astype(np.int64)
