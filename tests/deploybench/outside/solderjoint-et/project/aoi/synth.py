"""Synthetic solder-joint patches (fixed seeds): stands in for the line camera's archive.

A raw patch is what the line camera's ROI extractor stores: uint8 RGB, (56, 56, 3), one joint
between two copper pads on green solder mask."""
import numpy as np

CLASSES = ["good", "bridge", "insufficient", "cold", "missing"]
RAW = 56


def _ellipse(h, w, cy, cx, ry, rx):
    y, x = np.mgrid[:h, :w]
    return ((y - cy) / ry) ** 2 + ((x - cx) / rx) ** 2 <= 1.0


def make_patches(n, seed):
    rng = np.random.default_rng(seed)
    out = np.zeros((n, RAW, RAW, 3), np.uint8)
    labels = rng.integers(0, len(CLASSES), n)
    for k in range(n):
        c = int(labels[k])
        mask_col = np.array([30, 110, 50]) * rng.uniform(0.8, 1.2)
        img = np.ones((RAW, RAW, 3)) * mask_col
        cy, cx = RAW / 2 + rng.normal(0, 3, 2)
        gap = rng.uniform(10, 14)
        copper = np.array([200, 120, 60]) * rng.uniform(0.85, 1.1)
        for side in (-1, 1):
            pad = _ellipse(RAW, RAW, cy, cx + side * gap, rng.uniform(7, 9), rng.uniform(5, 6))
            img[pad] = copper
        solder = np.array([190, 195, 200]) * rng.uniform(0.85, 1.1)
        for side in (-1, 1):
            if c == 4:
                break
            if c == 2:
                r = rng.uniform(2.0, 3.5)
            else:
                r = rng.uniform(5.0, 6.5)
            blob = _ellipse(RAW, RAW, cy, cx + side * gap, r * 1.2, r)
            if c == 3:  # cold joint: dull, grainy surface
                tex = rng.uniform(0.45, 0.75, (RAW, RAW, 1))
                img[blob] = (solder * tex)[blob]
            else:
                img[blob] = solder
        if c == 1:  # bridge across the gap
            bridge = _ellipse(RAW, RAW, cy + rng.normal(0, 1), cx, rng.uniform(2.5, 4), gap)
            img[bridge] = solder
        # ring light and sensor noise
        y, x = np.mgrid[:RAW, :RAW]
        light = 1.0 + rng.uniform(-0.25, 0.25) * ((x - RAW / 2) / RAW) + rng.uniform(-0.25, 0.25) * ((y - RAW / 2) / RAW)
        img = img * light[..., None] * rng.uniform(0.8, 1.2) + rng.normal(0, 8, img.shape)
        out[k] = np.clip(img, 0, 255).astype(np.uint8)
    return out, labels.astype(np.int64)
