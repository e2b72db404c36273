"""Synthetic loom-camera patches (the vendor's recorded rolls are not redistributable).

A patch is a 3 x 40 x 40 RGB crop of plain-weave fabric, values in [0, 1]. Four classes:
0 clean, 1 hole (dark, sharp-edged gap), 2 slub (a thickened weft thread across the patch),
3 oil stain (a soft brownish blot). Lighting, yarn colour, weave pitch and noise vary per patch.
"""
from dataclasses import dataclass

import numpy as np

CLASSES = ("clean", "hole", "slub", "stain")
SIZE = 40


@dataclass(frozen=True)
class RollSpec:
    seed: int
    count: int


def _weave(rng, size):
    pitch = rng.uniform(3.0, 5.5)
    phase = rng.uniform(0, 2 * np.pi, size=2)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    warp = 0.5 + 0.5 * np.sin(2 * np.pi * xx / pitch + phase[0])
    weft = 0.5 + 0.5 * np.sin(2 * np.pi * yy / pitch + phase[1])
    return 0.55 + 0.25 * (warp * weft), yy, xx


def render_patch(rng, label):
    base, yy, xx = _weave(rng, SIZE)
    yarn = rng.uniform(0.6, 1.0, size=3).astype(np.float32)
    img = base[None] * yarn[:, None, None]
    cy, cx = rng.uniform(10, 30, size=2)
    if label == 1:      # hole: the backing shows through, dark and sharp
        r = rng.uniform(3.0, 6.0)
        mask = ((yy - cy) ** 2 + (xx - cx) ** 2) < r * r
        img = np.where(mask[None], img * 0.15, img)
    elif label == 2:    # slub: one weft thread two to three times as thick and brighter
        width = rng.uniform(2.0, 3.5)
        band = np.exp(-((yy - cy) ** 2) / (2 * width ** 2))
        img = img + 0.35 * band[None]
    elif label == 3:    # oil stain: soft brown blot
        r = rng.uniform(5.0, 9.0)
        blot = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        tint = np.array([0.45, 0.30, 0.10], np.float32)[:, None, None]
        img = img * (1 - 0.6 * blot[None]) + tint * 0.6 * blot[None] * 0.5
    gain = rng.uniform(0.75, 1.2)
    img = img * gain + rng.normal(0, 0.03, size=img.shape)
    return np.clip(img, 0.0, 1.0).astype(np.float32)


def make_roll(spec: RollSpec):
    """(patches uint8 N x 40 x 40 x 3 as the camera stores them, labels int64 N)."""
    rng = np.random.default_rng(spec.seed)
    labels = rng.integers(0, len(CLASSES), size=spec.count)
    patches = np.stack([render_patch(rng, int(k)) for k in labels])
    # the camera writes 8-bit HWC frames
    frames = np.round(patches.transpose(0, 2, 3, 1) * 255.0).astype(np.uint8)
    return frames, labels.astype(np.int64)
