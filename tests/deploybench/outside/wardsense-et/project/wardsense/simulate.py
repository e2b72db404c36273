"""Synthetic ceiling-sensor frames (24x32, degrees C) of the five room states. Stored as the
sensor reads them out: uint16 in centi-kelvin (0.01 K)."""
import numpy as np

H, W = 24, 32


def _blob(img, rng, cy, cx, sy, sx, amp):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    img += amp * np.exp(-(((yy - cy) / sy) ** 2 + ((xx - cx) / sx) ** 2) / 2)


def _person_up(img, rng, amb):
    _blob(img, rng, rng.uniform(4, H - 4), rng.uniform(4, W - 4), rng.uniform(1.3, 2.0), rng.uniform(1.3, 2.0), rng.uniform(5, 9))


def _frame(state, rng):
    amb = rng.uniform(17.0, 28.0)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    img = amb + rng.uniform(-0.6, 0.6) * (xx / W) + rng.uniform(-0.4, 0.4) * (yy / H)
    if state == 1:
        _person_up(img, rng, amb)
    elif state == 2:  # lying: an elongated body along one axis
        long_, short = rng.uniform(4.0, 6.5), rng.uniform(1.2, 1.8)
        sy, sx = (long_, short) if rng.random() < 0.5 else (short, long_)
        _blob(img, rng, rng.uniform(7, H - 7), rng.uniform(7, W - 7), sy, sx, rng.uniform(4, 8))
    elif state == 3:
        cy1, cx1 = rng.uniform(4, H - 4), rng.uniform(4, 12)
        _blob(img, rng, cy1, cx1, 1.6, 1.6, rng.uniform(5, 9))
        _blob(img, rng, rng.uniform(4, H - 4), rng.uniform(18, W - 4), 1.6, 1.6, rng.uniform(5, 9))
    if state == 4 or (state in (1, 2, 3) and rng.random() < 0.35):
        # kettle / heater: small and very hot
        cy, cx = rng.integers(1, H - 2), rng.integers(1, W - 2)
        img[cy:cy + rng.integers(1, 3), cx:cx + rng.integers(1, 3)] = rng.uniform(45, 90)
    img += rng.normal(0, 0.15, img.shape)
    return np.round((img + 273.15) * 100.0).astype(np.uint16)


def simulate(n, seed, num_states=5):
    rng = np.random.default_rng(seed)
    states = rng.integers(0, num_states, n).astype(np.int64)
    return np.stack([_frame(int(s), rng) for s in states]), states
