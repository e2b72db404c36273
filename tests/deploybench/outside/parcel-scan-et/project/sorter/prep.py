"""Scan preparation shared by training, the evaluation loader and the induction station."""
import numpy as np

TRAIN_POINTS = 256  # fixed point count of the training/evaluation loader (batches need one size)


def centre_and_scale(points_mm):
    """int16 millimetres (N, 3) -> float32 (N, 3): centroid at the origin, farthest point at radius 1."""
    p = np.asarray(points_mm, dtype=np.float32)
    p = p - p.mean(axis=0, keepdims=True)
    return (p / np.linalg.norm(p, axis=1).max()).astype(np.float32)


def resample(points, count, rng):
    """Exactly `count` rows of `points`: a random subset, or every point plus random repeats."""
    n = len(points)
    if n >= count:
        idx = rng.permutation(n)[:count]
    else:
        idx = np.concatenate([rng.permutation(n), rng.integers(0, n, count - n)])
    return points[idx]
