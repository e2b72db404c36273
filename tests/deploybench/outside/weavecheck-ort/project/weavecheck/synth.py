"""Synthetic loom camera patches (uint8, 32x32): a woven texture with jittered thread pitch,
phase, illumination and sensor noise, with one of the defect classes drawn in."""
import numpy as np

SIZE = 32


def _weave(rng):
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    fx, fy = rng.uniform(0.18, 0.30, 2)
    px, py = rng.uniform(0, 2 * np.pi, 2)
    base = rng.uniform(0.40, 0.60)
    contrast = rng.uniform(0.10, 0.18)
    img = base + contrast * np.sin(2 * np.pi * fx * xx + px) * np.sin(2 * np.pi * fy * yy + py)
    img += rng.uniform(-0.05, 0.05) * (xx - SIZE / 2) / SIZE  # illumination gradient
    return img, base, yy, xx


def _patch(label, rng):
    img, base, yy, xx = _weave(rng)
    if label == 1:  # hole: backlight shines through
        cy, cx = rng.uniform(8, 24, 2)
        r = rng.uniform(1.8, 3.5)
        img[(yy - cy) ** 2 + (xx - cx) ** 2 <= r * r] = rng.uniform(0.85, 1.0)
    elif label in (2, 3):  # broken warp (vertical) / weft (horizontal) thread: a flat gap
        pos = rng.integers(4, SIZE - 5)
        width = rng.integers(1, 3)
        start = rng.integers(0, 12)
        stop = rng.integers(start + 14, SIZE + 1)
        val = base - rng.uniform(0.12, 0.22)
        if label == 2:
            img[start:stop, pos:pos + width] = val
        else:
            img[pos:pos + width, start:stop] = val
    elif label == 4:  # oil stain: a soft dark blob
        cy, cx = rng.uniform(6, 26, 2)
        s = rng.uniform(3.5, 7.0)
        img -= rng.uniform(0.15, 0.28) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
    img += rng.normal(0, 0.02, img.shape)
    return np.clip(img * 255.0, 0, 255).astype(np.uint8)


def generate(n, seed, num_classes=5):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, num_classes, n).astype(np.int64)
    frames = np.stack([_patch(int(c), rng) for c in labels])
    return frames, labels
