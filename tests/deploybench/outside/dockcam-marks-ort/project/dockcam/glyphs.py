"""Synthetic dock captures: printed handling marks on label stock, at three camera exposures.

Ink is dark on light label paper. A capture is rendered at 4x and box-filtered to the sensor's
32x32, then the exposure (gain, offset, clipping) and sensor noise are applied and the frame is
stored as the camera delivers it: 8-bit grey.
"""
import numpy as np

SIZE = 32
EXPOSURES = ("normal", "night", "door_lights")


def _canvas(rng, s):
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
    cx, cy = 0.5 + rng.uniform(-0.08, 0.08, 2)
    scale = rng.uniform(0.75, 1.05)
    ang = rng.uniform(-0.25, 0.25)
    u = ((xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)) / scale
    v = (-(xx - cx) * np.sin(ang) + (yy - cy) * np.cos(ang)) / scale
    return u, v


def _mark(kind, rng, s=SIZE * 4):
    u, v = _canvas(rng, s)
    w = rng.uniform(0.045, 0.07)
    if kind == 0:    # fragile: an X (stylised broken glass)
        ink = (np.abs(u - v) < w) | (np.abs(u + v) < w)
        ink &= (np.abs(u) < 0.33) & (np.abs(v) < 0.33)
    elif kind == 1:  # keep dry: umbrella canopy (upper half ring) and a handle
        r = np.hypot(u, v + 0.05)
        ink = (np.abs(r - 0.28) < w) & (v < -0.05)
        ink |= (np.abs(u) < w * 0.8) & (v > -0.05) & (v < 0.3)
    elif kind == 2:  # this way up: two upward arrows
        ink = np.zeros_like(u, dtype=bool)
        for x0 in (-0.15, 0.15):
            ink |= (np.abs(u - x0) < w * 0.8) & (v > -0.1) & (v < 0.32)
            ink |= (v > -0.32) & (v < -0.1) & (np.abs(u - x0) < (v + 0.32) * 0.55)
    else:            # do not stack: three horizontal boxes, the top one crossed
        ink = np.zeros_like(u, dtype=bool)
        for y0 in (-0.22, 0.0, 0.22):
            ink |= (np.abs(np.abs(v - y0) - 0.08) < w * 0.6) & (np.abs(u) < 0.3)
            ink |= (np.abs(np.abs(u) - 0.3) < w * 0.6) & (np.abs(v - y0) < 0.08)
    ink = ink.astype(np.float32).reshape(SIZE, 4, SIZE, 4).mean(axis=(1, 3))
    return ink


def render(kind, exposure, rng):
    """-> uint8 (32, 32) frame as the camera delivers it."""
    ink = _mark(kind, rng)
    paper = rng.uniform(0.78, 0.92) + rng.normal(0, 0.02, (SIZE, SIZE))
    scene = paper * (1 - ink) + rng.uniform(0.05, 0.15) * ink
    if exposure == "normal":
        gain, offset = rng.uniform(0.8, 1.0), rng.uniform(-0.06, 0.0)
    elif exposure == "night":
        gain, offset = rng.uniform(0.12, 0.25), rng.uniform(0.0, 0.03)
    else:  # door lights
        gain, offset = rng.uniform(0.3, 0.4), rng.uniform(0.68, 0.74)
    frame = scene * gain + offset + rng.normal(0, 0.008, scene.shape)
    return (np.clip(frame, 0, 1) * 255 + 0.5).astype(np.uint8)


def render_set(n, seed, exposure_mix=(0.5, 0.25, 0.25)):
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 4, n)
    exposures = rng.choice(len(EXPOSURES), n, p=exposure_mix)
    frames = np.stack([render(k, EXPOSURES[e], rng) for k, e in zip(kinds, exposures)])
    return frames, kinds.astype(np.int64), exposures.astype(np.int64)
