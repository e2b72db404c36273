"""Seeded simulator of 8x8 multizone ToF captures of hand gestures over the kiosk.

A capture is FRAMES consecutive ranging frames, each (8, 8) uint16 millimetres in the sensor's
zone order (row 0 = the zones nearest the screen, column 0 = the user's left). Zones whose
status is invalid read 0. The background is the lobby ceiling/wall 1.8-3.0 m away.
"""
import numpy as np

ZONES = 8
FRAMES = 6
GESTURES = ("swipe_left", "swipe_right", "swipe_up", "swipe_down", "push", "pull")

_rows, _cols = np.mgrid[0:ZONES, 0:ZONES].astype(float)


def _hand(cy, cx, radius, depth_m):
    d2 = (_rows - cy) ** 2 + (_cols - cx) ** 2
    cover = np.clip(radius + 0.5 - np.sqrt(d2), 0.0, 1.0)          # soft edge: partial zone cover
    return cover, depth_m + 0.015 * d2                               # palm is slightly curved


def capture(gesture, rng):
    bg = rng.uniform(1.8, 3.0) + rng.uniform(-0.03, 0.03) * (_rows - 3.5) + rng.uniform(-0.03, 0.03) * (_cols - 3.5)
    t = np.linspace(0.0, 1.0, FRAMES) * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1)
    lane = rng.uniform(2.0, 5.0)
    radius = rng.uniform(1.6, 2.6)
    depth = rng.uniform(0.25, 0.6)
    frames = []
    for k in range(FRAMES):
        s = t[k]
        if gesture in (0, 1):                                       # along columns
            cx = (8.5 - 10.0 * s) if gesture == 0 else (-1.5 + 10.0 * s)
            cover, hd = _hand(lane, cx, radius, depth)
        elif gesture in (2, 3):                                     # along rows
            cy = (8.5 - 10.0 * s) if gesture == 2 else (-1.5 + 10.0 * s)
            cover, hd = _hand(cy, lane, radius, depth)
        else:                                                       # towards / away from sensor
            z = (0.75 - 0.55 * s) if gesture == 4 else (0.2 + 0.55 * s)
            cover, hd = _hand(3.5 + rng.normal(0, 0.2), 3.5 + rng.normal(0, 0.2), 1.2 + 0.9 / max(z, 0.15), z)
        mm = (cover * hd + (1 - cover) * bg) * 1000.0 + rng.normal(0, 15.0, (ZONES, ZONES))
        mm[rng.random((ZONES, ZONES)) < 0.03] = 0                    # invalid zone status
        frames.append(np.clip(np.round(mm), 0, 65535).astype(np.uint16))
    return np.stack(frames)                                         # (FRAMES, 8, 8)


def captures(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(GESTURES), n)
    return np.stack([capture(int(g), rng) for g in labels]), labels.astype(np.int64)
