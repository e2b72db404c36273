"""Synthetic leaf patches (fixed seeds, no download).

A field camera crops 16x16 RGB patches off leaves; it hands them over as uint8 arrays in
(height, width, channel) order. Four conditions:

    0 healthy   green tissue with a midrib and side veins
    1 rust      small orange pustules on green tissue
    2 mildew    soft whitish blotches over the tissue
    3 blight    one large brown lesion with a darker rim

The classifier takes float32 (N, 3, 16, 16): per channel (patch / 255 - MEAN) / STD.
"""
from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass(frozen=True)
class PatchSpec:
    side: int = 16
    channels: int = 3
    conditions: tuple = ("healthy", "rust", "mildew", "blight")
    # per-channel statistics of the training patches (R, G, B), on the 0..1 scale
    mean: tuple = (0.334, 0.569, 0.254)
    std: tuple = (0.141, 0.144, 0.137)


SPEC = PatchSpec()


def _grid(side):
    return np.mgrid[0:side, 0:side].astype(np.float64)


def _tissue(rng, side):
    yy, xx = _grid(side)
    green = np.array([0.25, 0.55, 0.20]) * rng.uniform(0.85, 1.15)
    img = np.broadcast_to(green, (side, side, 3)).copy()
    # midrib at a random angle plus faint side veins
    angle = rng.uniform(0, np.pi)
    offset = rng.uniform(-3, 3)
    d = (xx - side / 2) * np.cos(angle) - (yy - side / 2) * np.sin(angle) - offset
    rib = np.exp(-d ** 2 / 1.2)
    img += rib[..., None] * np.array([0.10, 0.12, 0.08])
    along = (xx - side / 2) * np.sin(angle) + (yy - side / 2) * np.cos(angle)
    veins = 0.5 + 0.5 * np.cos(along * rng.uniform(1.0, 1.6))
    img += 0.03 * veins[..., None]
    return img


def _rust(img, rng, side):
    yy, xx = _grid(side)
    for _ in range(rng.integers(4, 8)):
        cy, cx = rng.uniform(1, side - 1, size=2)
        r2 = rng.uniform(0.8, 2.0)
        spot = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / r2)[..., None]
        img = img * (1 - spot) + spot * np.array([0.82, 0.45, 0.10])
    return img


def _mildew(img, rng, side):
    coarse = rng.uniform(0, 1, (4, 4))
    cover = np.kron(coarse, np.ones((side // 4, side // 4)))
    # blur the blocky mask a little
    cover = (cover + np.roll(cover, 1, 0) + np.roll(cover, 1, 1) + np.roll(cover, -1, 0) + np.roll(cover, -1, 1)) / 5
    cover = np.clip((cover - 0.35) * 1.6, 0, 0.85)[..., None]
    return img * (1 - cover) + cover * np.array([0.86, 0.88, 0.84])


def _blight(img, rng, side):
    yy, xx = _grid(side)
    cy, cx = rng.uniform(4, side - 4, size=2)
    radius = rng.uniform(3.5, 6.0)
    dist = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    core = (1 / (1 + np.exp((dist - radius) * 2.0)))[..., None]
    rim = np.exp(-(dist - radius) ** 2 / 0.8)[..., None]
    img = img * (1 - core) + core * np.array([0.45, 0.30, 0.14])
    return img * (1 - 0.5 * rim)


_LESIONS = {1: _rust, 2: _mildew, 3: _blight}


def field_shots(count, seed, spec=SPEC):
    """`count` patches as the camera delivers them: uint8 (count, 16, 16, 3), and their labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(spec.conditions), size=count)
    shots = np.empty((count, spec.side, spec.side, spec.channels), dtype=np.uint8)
    for i, cond in enumerate(labels):
        img = _tissue(rng, spec.side)
        if cond in _LESIONS:
            img = _LESIONS[int(cond)](img, rng, spec.side)
        img = img * rng.uniform(0.8, 1.2)  # exposure
        img = img + rng.normal(0, 0.04, img.shape)
        shots[i] = np.clip(np.rint(img * 255), 0, 255).astype(np.uint8)
    return shots, labels.astype(np.int64)


def to_tensor(shots, spec=SPEC):
    """uint8 (N, H, W, 3) -> float32 (N, 3, H, W), standardised per channel, contiguous."""
    mean = np.asarray(spec.mean, dtype=np.float32)
    std = np.asarray(spec.std, dtype=np.float32)
    x = (shots.astype(np.float32) / 255.0 - mean) / std
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


# ---- what aipc.toml [project] names -------------------------------------------------------

def training_split():
    shots, labels = field_shots(2000, seed=101)
    return to_tensor(shots), torch.from_numpy(labels)


def holdout():
    """((patches,), labels): 500 held-out patches in the model's layout."""
    shots, labels = field_shots(500, seed=202)
    return (to_tensor(shots),), torch.from_numpy(labels)


def one_patch():
    """One held-out patch, batch 1: (patches (1, 3, 16, 16) float32,)."""
    (x,), _ = holdout()
    return (x[:1].clone(),)


def calibration_patches(count=64):
    shots, _ = field_shots(count, seed=303)
    x = to_tensor(shots)
    return [(x[i:i + 1].clone(),) for i in range(count)]
