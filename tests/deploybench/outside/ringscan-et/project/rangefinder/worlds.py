"""Synthetic 2D worlds and a ray caster for the 128-beam ring rangefinder.

The robot sits at the origin; beam i points at angle 2*pi*i/128 (counter-clockwise from the
robot's heading). Every world is drawn in its own frame and rotated by a random heading, so a
place looks the same up to a circular shift of the scan.
"""
import numpy as np

BEAMS = 128
MAX_RANGE_M = 8.0
PLACES = ("corridor", "room", "junction", "open_hall")
_FAR = 40.0


def beam_angles():
    return 2.0 * np.pi * np.arange(BEAMS) / BEAMS


def _cast_segments(angles, segs):
    """Distance along each beam to the nearest segment (inf when none is hit)."""
    d = np.stack([np.cos(angles), np.sin(angles)], 1)[:, None, :]        # (B, 1, 2)
    p, q = segs[None, :, 0, :], segs[None, :, 1, :]                       # (1, S, 2)
    e = q - p
    denom = d[..., 0] * e[..., 1] - d[..., 1] * e[..., 0]                 # (B, S)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (p[..., 0] * e[..., 1] - p[..., 1] * e[..., 0]) / denom
        u = (p[..., 0] * d[..., 1] - p[..., 1] * d[..., 0]) / denom
    hit = (np.abs(denom) > 1e-9) & (t > 0) & (u >= 0) & (u <= 1)
    return np.where(hit, t, np.inf).min(1)


def _cast_circles(angles, circles):
    if len(circles) == 0:
        return np.full(len(angles), np.inf)
    d = np.stack([np.cos(angles), np.sin(angles)], 1)[:, None, :]
    c, r = circles[None, :, :2], circles[None, :, 2]
    b = (d * c).sum(-1)
    disc = b ** 2 - ((c ** 2).sum(-1) - r ** 2)
    with np.errstate(invalid="ignore"):
        t = b - np.sqrt(disc)
    return np.where((disc >= 0) & (t > 0), t, np.inf).min(1)


def _rot(segs, phi):
    R = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    return segs @ R.T


def _corridor(rng):
    a, b = rng.uniform(0.5, 1.3), rng.uniform(0.5, 1.3)
    segs = [[(-_FAR, -a), (_FAR, -a)], [(-_FAR, b), (_FAR, b)]]
    if rng.random() < 0.5:                                  # dead end ahead
        x = rng.uniform(3.0, 7.5)
        segs.append([(x, -a), (x, b)])
    return np.array(segs, float), np.zeros((0, 3))


def _room(rng):
    x0, x1 = -rng.uniform(1.0, 3.5), rng.uniform(1.0, 3.5)
    y0, y1 = -rng.uniform(1.0, 3.5), rng.uniform(1.0, 3.5)
    segs = [[(x0, y0), (x1, y0)], [(x1, y0), (x1, y1)], [(x1, y1), (x0, y1)], [(x0, y1), (x0, y0)]]
    return np.array(segs, float), np.zeros((0, 3))


def _junction(rng):
    a, b = rng.uniform(0.5, 1.3), rng.uniform(0.5, 1.3)
    c, w = rng.uniform(-1.2, 1.2), rng.uniform(1.0, 2.2)
    l, r = c - w / 2, c + w / 2
    segs = [[(-_FAR, -a), (l, -a)], [(r, -a), (_FAR, -a)], [(l, -a), (l, -_FAR)], [(r, -a), (r, -_FAR)]]
    if rng.random() < 0.5:                                  # crossing, else a T
        segs += [[(-_FAR, b), (l, b)], [(r, b), (_FAR, b)], [(l, b), (l, _FAR)], [(r, b), (r, _FAR)]]
    else:
        segs.append([(-_FAR, b), (_FAR, b)])
    return np.array(segs, float), np.zeros((0, 3))


def _open_hall(rng):
    n = rng.integers(3, 8)
    ang, dist = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.0, 6.5, n)
    circles = np.stack([dist * np.cos(ang), dist * np.sin(ang), rng.uniform(0.15, 0.45, n)], 1)
    h = rng.uniform(6.0, 12.0)
    segs = np.array([[(-h, -h), (h, -h)], [(h, -h), (h, h)], [(h, h), (-h, h)], [(-h, h), (-h, -h)]], float)
    return segs, circles


_BUILDERS = (_corridor, _room, _junction, _open_hall)


def scan(place, rng):
    """One scan in millimetres (uint16), as the driver publishes it."""
    segs, circles = _BUILDERS[place](rng)
    phi = rng.uniform(0, 2 * np.pi)
    segs = _rot(segs.reshape(-1, 2), phi).reshape(-1, 2, 2)
    if len(circles):
        circles = np.concatenate([_rot(circles[:, :2], phi), circles[:, 2:]], 1)
    ang = beam_angles()
    r = np.minimum(_cast_segments(ang, segs), _cast_circles(ang, circles))
    r = r + rng.normal(0, 0.02, BEAMS)
    r = np.clip(r, 0.05, MAX_RANGE_M)
    r[rng.random(BEAMS) < 0.02] = MAX_RANGE_M               # dropped returns read as max range
    return np.round(r * 1000).astype(np.uint16)


def make(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(PLACES), n)
    return np.stack([scan(int(k), rng) for k in labels]), labels.astype(np.int64)
