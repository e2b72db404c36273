"""Synthetic street-side LiDAR captures.

A capture is what the clustering stage of the sensor pole hands on: the returns of one object,
in the sensor frame, in millimetres (int16), as many points as the object reflected (far or small
objects give few, near ones a few hundred). Only the side facing the sensor is seen.

The generator is deterministic for a given numpy Generator; train.py uses it to write the
stored capture files under data/.
"""
import numpy as np

CLASSES = ("bollard", "waste_bin", "shrub", "sign_post", "traffic_cone", "bicycle")
MIN_POINTS, MAX_POINTS = 40, 420


def _cylinder(rng, n, radius, height, z0=0.0):
    a = rng.uniform(0, 2 * np.pi, n)
    return np.stack([radius * np.cos(a), radius * np.sin(a), z0 + rng.uniform(0, height, n)], 1)


def _box(rng, n, sx, sy, sz):
    p = rng.uniform(-0.5, 0.5, (n, 3)) * [sx, sy, sz]
    face = rng.integers(0, 5, n)  # four walls and the lid
    p[face == 0, 0] = -sx / 2
    p[face == 1, 0] = sx / 2
    p[face == 2, 1] = -sy / 2
    p[face == 3, 1] = sy / 2
    p[face == 4, 2] = sz / 2
    p[:, 2] += sz / 2
    return p


def _bollard(rng, n):
    return _cylinder(rng, n, rng.uniform(0.07, 0.11), rng.uniform(0.8, 1.0))


def _waste_bin(rng, n):
    return _box(rng, n, rng.uniform(0.45, 0.6), rng.uniform(0.45, 0.6), rng.uniform(0.9, 1.1))


def _shrub(rng, n):
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    r = rng.uniform(0.45, 0.7) * rng.uniform(0.65, 1.0, (n, 1))
    p = d * r * [1.0, 1.0, rng.uniform(0.6, 0.9)]
    p[:, 2] = np.abs(p[:, 2]) + 0.05
    return p


def _sign_post(rng, n):
    k = int(n * 0.45)
    pole = _cylinder(rng, k, 0.03, 2.3)
    w = rng.uniform(0.5, 0.7)
    plate = np.stack([np.full(n - k, 0.04), rng.uniform(-w / 2, w / 2, n - k), rng.uniform(1.8, 1.8 + w, n - k)], 1)
    return np.concatenate([pole, plate])


def _traffic_cone(rng, n):
    h, r0 = rng.uniform(0.5, 0.75), rng.uniform(0.15, 0.2)
    k = int(n * 0.8)
    t = np.sqrt(rng.uniform(0, 1, k))  # more area near the base
    a = rng.uniform(0, 2 * np.pi, k)
    cone = np.stack([t * r0 * np.cos(a), t * r0 * np.sin(a), (1 - t) * h], 1)
    base = np.stack([rng.uniform(-0.2, 0.2, n - k), rng.uniform(-0.2, 0.2, n - k), np.full(n - k, 0.02)], 1)
    return np.concatenate([cone, base])


def _bicycle(rng, n):
    r, gap = rng.uniform(0.3, 0.36), rng.uniform(1.0, 1.1)
    k = int(n * 0.35)
    a = rng.uniform(0, 2 * np.pi, 2 * k)
    wheels = np.stack([r * np.cos(a), rng.normal(0, 0.01, 2 * k), r + r * np.sin(a)], 1)
    wheels[k:, 0] += gap
    m = n - 2 * k
    s = rng.uniform(0, 1, m)
    frame = np.stack([gap * s, rng.normal(0, 0.02, m), r + 0.45 * np.sin(np.pi * s)], 1)
    return np.concatenate([wheels, frame]) - [gap / 2, 0, 0]


_SHAPES = (_bollard, _waste_bin, _shrub, _sign_post, _traffic_cone, _bicycle)


def capture(rng, label):
    """One capture of an object of class `label`: (int16 array (n, 3) in mm, sensor frame)."""
    n_target = int(rng.integers(MIN_POINTS, MAX_POINTS + 1))
    pts = _SHAPES[label](rng, 2 * n_target + 16)
    yaw = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(yaw), np.sin(yaw)
    pts = pts @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T
    # the sensor looks from -x: the far side of the object is occluded
    extent = np.ptp(pts[:, 0]) + 1e-6
    visible = pts[:, 0] - pts[:, 0].min() < 0.6 * extent + 0.03
    pts = pts[visible]
    pts = pts[rng.permutation(len(pts))[:n_target]]
    # ground returns the clustering stage did not cut away, up to a fifth of the cluster
    g = int(len(pts) * rng.uniform(0.0, 0.2))
    ground = np.stack([rng.uniform(-0.6, 0.6, g), rng.uniform(-0.6, 0.6, g), rng.normal(0.0, 0.02, g)], 1)
    pts = np.concatenate([pts, ground])
    dist = rng.uniform(3.0, 22.0)
    bearing = rng.uniform(-0.6, 0.6)
    pts = pts + [dist * np.cos(bearing), dist * np.sin(bearing), -1.9]  # sensor mounted 1.9 m up
    pts = pts + rng.normal(0, 0.012, pts.shape)
    return np.round(pts * 1000.0).astype(np.int16)


def captures(seed, count):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), count)
    return [capture(rng, int(y)) for y in labels], labels.astype(np.int64)
