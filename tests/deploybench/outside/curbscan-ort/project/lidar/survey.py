"""Synthetic survey sweeps: clustered street-furniture segments as the mobile mapper's
clustering stage emits them (sensor frame, metres, 160..320 points per cluster)."""
import numpy as np

from .settings import CLASSES


def _cyl(rng, m, r, h):
    a = rng.uniform(0, 2 * np.pi, m)
    return np.stack([r * np.cos(a), r * np.sin(a), rng.uniform(0, h, m)], 1)


def _segment(kind, rng, m):
    if kind == "pole":
        h = rng.uniform(4, 8)
        body = _cyl(rng, m - m // 8, rng.uniform(0.08, 0.15), h)
        arm = np.stack([rng.uniform(0, rng.uniform(0.8, 1.6), m // 8), np.zeros(m // 8), np.full(m // 8, h)], 1)
        return np.concatenate([body, arm])
    if kind == "facade":
        w, h = rng.uniform(4, 10), rng.uniform(3, 8)
        p = np.stack([rng.uniform(0, w, m), np.zeros(m), rng.uniform(0, h, m)], 1)
        recess = (np.sin(p[:, 0] * 2.1) > 0.5) & (np.sin(p[:, 2] * 2.4) > 0.3)
        p[recess, 1] += 0.25
        return p
    if kind == "tree":
        mt = m // 5
        trunk = _cyl(rng, mt, rng.uniform(0.12, 0.25), rng.uniform(1.5, 3.0))
        r = rng.uniform(1.5, 3.0)
        v = rng.normal(size=(m - mt, 3))
        v = v / np.linalg.norm(v, axis=1, keepdims=True) * (r * rng.uniform(0.4, 1.0, (m - mt, 1)) ** (1 / 3))
        v[:, 2] = v[:, 2] * rng.uniform(0.8, 1.3) + trunk[:, 2].max() + r * 0.8
        return np.concatenate([trunk, v])
    if kind == "car":
        L, W, H = rng.uniform(3.8, 4.8), rng.uniform(1.6, 1.9), rng.uniform(1.3, 1.7)
        face = rng.integers(0, 3, m)
        u, v = rng.random(m), rng.random(m)
        p = np.where(face[:, None] == 0, np.stack([u * L, np.zeros(m), v * H * 0.7], 1),
            np.where(face[:, None] == 1, np.stack([u * L * 0.6 + L * 0.2, v * W, np.full(m, H)], 1),
                     np.stack([np.zeros(m), v * W, u * H * 0.7], 1)))
        return p
    if kind == "cable":
        span, sag = rng.uniform(8, 20), rng.uniform(0.3, 1.0)
        x = rng.uniform(-span / 2, span / 2, m)
        z = sag * (4 * x ** 2 / span ** 2) + rng.uniform(5, 7)
        return np.stack([x, rng.normal(0, 0.01, m), z], 1)
    if kind == "pedestrian":
        h = rng.uniform(1.5, 1.9)
        v = rng.normal(size=(m, 3))
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
        return v * np.array([0.25, 0.18, h / 2]) + np.array([0, 0, h / 2])
    raise ValueError(kind)


def make_sweep(n, seed):
    """-> (points float64 (P, 3), offsets int64 (n + 1,), labels int64 (n,))."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    chunks, offsets = [], [0]
    for c in labels:
        m = int(rng.integers(160, 321))
        p = _segment(CLASSES[c], rng, m)
        yaw = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
        p = p @ rot.T + rng.normal(0, rng.uniform(0.01, 0.04), p.shape)
        p = p + np.array([rng.uniform(5, 30) * rng.choice([-1, 1]), rng.uniform(-12, 12), -1.9])
        chunks.append(p)
        offsets.append(offsets[-1] + len(p))
    return np.concatenate(chunks), np.asarray(offsets, np.int64), labels.astype(np.int64)
