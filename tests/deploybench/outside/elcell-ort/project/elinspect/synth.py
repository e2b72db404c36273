"""Synthetic EL cell crops in 12-bit camera counts. A lit cell glows evenly (with a slight radial
falloff and grain), busbars are dark rows; defects: a crack (thin dark line), an inactive area
(a dark region cut off by a crack, at a corner), finger interruptions (short dark vertical
streaks between busbars)."""
import numpy as np

from .config import CameraCfg

CAM = CameraCfg()


def _cell(label, rng, cam=CAM):
    n = cam.cell_px
    yy, xx = np.mgrid[0:n, 0:n] / (n - 1)
    level = rng.uniform(0.35, 0.6)
    img = level * (1 - 0.15 * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * rng.uniform(0.5, 1.5))
    img *= 1 + rng.normal(0, 0.04, (n, n))
    if label == 1:
        x0, y0 = rng.uniform(0, 1, 2)
        ang = rng.uniform(0, np.pi)
        dist = np.abs((xx - x0) * np.sin(ang) - (yy - y0) * np.cos(ang))
        along = (xx - x0) * np.cos(ang) + (yy - y0) * np.sin(ang)
        length = rng.uniform(0.4, 0.9)
        img *= 1 - rng.uniform(0.45, 0.7) * ((dist < 0.025) & (np.abs(along) < length / 2))
    elif label == 2:
        cx, cy = rng.integers(0, 2, 2)
        r = rng.uniform(0.3, 0.55)
        region = (np.abs(xx - cx) + np.abs(yy - cy)) < r
        img *= np.where(region, rng.uniform(0.15, 0.4), 1.0)
    elif label == 3:
        for _ in range(rng.integers(3, 7)):
            c = rng.integers(1, n - 1)
            r0 = rng.integers(0, n - 6)
            img[r0:r0 + rng.integers(3, 6), c] *= rng.uniform(0.3, 0.55)
    for r in cam.busbar_rows:
        img[r, :] *= 0.25
    counts = img * cam.full_scale + rng.normal(0, 12, (n, n))
    return np.clip(np.round(counts), 0, cam.full_scale).astype(np.uint16)


def cells(n, seed, cam=CAM):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    return np.stack([_cell(int(l), rng, cam) for l in labels]), labels.astype(np.int64)
