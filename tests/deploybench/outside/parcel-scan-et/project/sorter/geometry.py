"""Synthetic parcel scans (the lab stand-in for the overhead depth sensor).

A scan is the set of surface points of one parcel lying on the belt, in millimetres, z up from
the belt, as the sensor driver writes them (int16). The number of points depends on the size of
the parcel and on how long it stayed under the sensor: small mailers give ~120 points, long
tubes and large boxes up to ~420.
"""
import numpy as np

CLASSES = ("box", "tube", "pouch", "envelope")
MIN_POINTS, MAX_POINTS = 120, 420
NOISE_MM = 2.0


def _box_surface(rng, n, lx, ly, lz):
    """n points on the five faces of a box that the sensors see (not the one on the belt)."""
    areas = np.array([lx * ly, lx * lz, lx * lz, ly * lz, ly * lz])
    face = rng.choice(5, size=n, p=areas / areas.sum())
    u, v = rng.random(n), rng.random(n)
    x = (u - 0.5) * lx
    y = (v - 0.5) * ly
    z = np.full(n, lz)
    side = face == 1
    y[side], z[side] = -ly / 2, v[side] * lz
    side = face == 2
    y[side], z[side] = ly / 2, v[side] * lz
    side = face == 3
    x[side], y[side], z[side] = -lx / 2, (u[side] - 0.5) * ly, v[side] * lz
    side = face == 4
    x[side], y[side], z[side] = lx / 2, (u[side] - 0.5) * ly, v[side] * lz
    return np.stack([x, y, z], 1), 2 * (lx * lz + ly * lz) + lx * ly


def _tube_surface(rng, n, length, radius):
    """A cylinder lying along x: its curved surface above the contact line, and its two caps."""
    theta = rng.uniform(-0.85 * np.pi, 0.85 * np.pi, n)
    x = (rng.random(n) - 0.5) * length
    cap = rng.random(n) < 0.08
    r = np.where(cap, radius * np.sqrt(rng.random(n)), radius)
    x = np.where(cap, np.sign(rng.random(n) - 0.5) * length / 2, x)
    y = r * np.sin(theta)
    z = radius + r * np.cos(theta)
    return np.stack([x, y, z], 1), 2 * np.pi * radius * length * 0.85


def _pouch_surface(rng, n, a, b, c):
    """A soft poly bag: the upper half of an ellipsoid."""
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    d[:, 2] = np.abs(d[:, 2])
    return d * np.array([a, b, c]), 2 * np.pi * (a * b + a * c + b * c) / 3


def parcel(rng, label):
    """One scan of a parcel of class `label`: (points int16 (N, 3) in mm, N)."""
    name = CLASSES[label]
    probe = 2048
    if name == "box":
        pts, area = _box_surface(rng, probe, rng.uniform(150, 450), rng.uniform(100, 350), rng.uniform(80, 300))
    elif name == "envelope":
        pts, area = _box_surface(rng, probe, rng.uniform(200, 380), rng.uniform(150, 280), rng.uniform(5, 25))
    elif name == "tube":
        pts, area = _tube_surface(rng, probe, rng.uniform(300, 900), rng.uniform(30, 60))
    else:
        pts, area = _pouch_surface(rng, probe, rng.uniform(120, 250), rng.uniform(90, 180), rng.uniform(30, 90))
    # point count: sensor density times visible area, with belt-speed jitter
    n = int(np.clip(area / 450.0 * rng.uniform(0.7, 1.3), MIN_POINTS, MAX_POINTS))
    pts = pts[:n]
    yaw = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    pts = pts @ rot.T + rng.uniform(-300, 300, size=3) * np.array([1, 1, 0])
    pts = pts + rng.normal(scale=NOISE_MM, size=pts.shape)
    return np.round(pts).astype(np.int16)


def make_scans(seed, count):
    """`count` scans with balanced labels: (list of int16 (N_i, 3) arrays, labels int64)."""
    rng = np.random.default_rng(seed)
    labels = np.arange(count) % len(CLASSES)
    rng.shuffle(labels)
    return [parcel(rng, int(k)) for k in labels], labels.astype(np.int64)


def pack(scans):
    """Ragged scans -> (points (sum N, 3) int16, offsets (count + 1,) int64): the belt log format."""
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in scans])]).astype(np.int64)
    return np.concatenate(scans, 0), offsets


def unpack(points, offsets):
    return [points[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]
