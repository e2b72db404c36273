"""Synthetic crops of a panel status LED, as the line camera delivers them.

The line camera's SDK hands out frames as packed 8-bit BGR (OpenCV order), height x width x 3.
render_crops() returns crops in that same form, so the stored captures are byte-for-byte what
the camera produced.
"""
import numpy as np

from indicator.labels import CROP_SIZE, LED_STATES

# emitted colour of each state, R, G, B in [0, 1]
_EMISSION_RGB = {
    "off": (0.28, 0.27, 0.26),
    "red": (1.00, 0.12, 0.08),
    "amber": (1.00, 0.62, 0.05),
    "green": (0.10, 0.95, 0.20),
    "blue": (0.10, 0.25, 1.00),
}


def _crop(rng, state):
    yy, xx = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE].astype(np.float32)
    # brushed-metal panel: grey with a gradient and grain
    base = rng.uniform(0.10, 0.22)
    panel = base + 0.04 * (xx / CROP_SIZE) * rng.uniform(-1, 1) + rng.normal(0, 0.015, (CROP_SIZE, CROP_SIZE))
    tint = rng.uniform(-0.02, 0.02, 3)
    img = panel[..., None] + tint
    cy, cx = rng.uniform(9, CROP_SIZE - 9, 2)
    r = rng.uniform(2.5, 4.5)
    d2 = (yy - cy) ** 2 + (xx - cx) ** 2
    emission = np.array(_EMISSION_RGB[state]) * rng.uniform(0.7, 1.0)
    lit = state != "off"
    body = np.clip(1.5 - np.sqrt(d2) / r, 0, 1)[..., None]        # the lens
    glow = (np.exp(-d2 / (2 * (2.2 * r) ** 2)) * (0.35 if lit else 0.0))[..., None]
    img = img * (1 - body) + emission * body + emission * glow
    # camera: mild white balance drift, sensor noise
    img = img * rng.uniform(0.9, 1.1, 3) + rng.normal(0, 0.02, img.shape)
    rgb = np.clip(np.round(img * 255), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(rgb[..., ::-1])  # packed BGR, as the SDK delivers


def render_crops(n, seed):
    """n crops (n, 32, 32, 3) uint8 BGR and their state indices, balanced over LED_STATES."""
    rng = np.random.default_rng(seed)
    states = np.arange(n) % len(LED_STATES)
    rng.shuffle(states)
    crops = np.stack([_crop(rng, LED_STATES[s]) for s in states])
    return crops, states.astype(np.int64)
