"""Render the synthetic backlit conveyor frames (fixed seeds) into frames/*.npz.

The inspection station looks down at parts on a backlit conveyor: the belt glows, a part is a
dark silhouette (light passes through a washer's or a nut's hole). Frames are 20x20 8-bit. The
backlight's exposure drifts a lot over a shift (LED ageing, auto-exposure off) and the lens
vignettes, so the absolute grey levels of belt and part vary from frame to frame.

python render_parts.py  ->  frames/train_frames.npz, frames/eval_frames.npz (uint8 frames + part ids)
"""
import os

import numpy as np

PARTS = ("washer", "hex_nut", "bolt", "l_bracket")
SIZE = 20
SUPER = 4
HERE = os.path.dirname(os.path.abspath(__file__))


def _coverage(rng, part):
    n = SIZE * SUPER
    c = (np.arange(n) + 0.5) / SUPER - SIZE / 2
    xx, yy = np.meshgrid(c, c)
    theta = rng.uniform(0, 2 * np.pi)
    cx, cy = rng.uniform(-1.5, 1.5, size=2)
    u = (xx - cx) * np.cos(theta) + (yy - cy) * np.sin(theta)
    v = -(xx - cx) * np.sin(theta) + (yy - cy) * np.cos(theta)
    r = np.hypot(u, v)
    s = rng.uniform(0.9, 1.1)
    if part == "washer":
        m = (r < 6.6 * s) & (r > 2.8 * s)
    elif part == "hex_nut":
        ang = np.arctan2(v, u)
        sector = np.mod(ang, np.pi / 3) - np.pi / 6
        apothem = 5.9 * s
        m = (r * np.cos(sector) < apothem) & (r > 2.6 * s)
    elif part == "bolt":
        shank = (np.abs(u) < 1.5 * s) & (v > -5.0 * s) & (v < 8.0 * s)
        head = (np.abs(u) < 3.6 * s) & (v > -8.0 * s) & (v <= -5.0 * s)
        m = shank | head
    else:  # l_bracket
        arm1 = (u > -6.0 * s) & (u < 6.0 * s) & (v > 3.0 * s) & (v < 6.0 * s)
        arm2 = (u > -6.0 * s) & (u < -3.0 * s) & (v > -6.0 * s) & (v <= 3.0 * s)
        m = arm1 | arm2
    return m.reshape(SIZE, SUPER, SIZE, SUPER).mean(axis=(1, 3))


def frame(rng, part):
    cov = _coverage(rng, part)
    exposure = rng.uniform(0.22, 0.96)          # belt brightness at the image centre
    c = np.arange(SIZE) - (SIZE - 1) / 2
    r2 = (c[None, :] ** 2 + c[:, None] ** 2) / (SIZE / 2) ** 2
    belt = exposure * (1 - rng.uniform(0.05, 0.3) * r2)
    gx, gy = rng.uniform(-0.08, 0.08, size=2)
    belt = belt * (1 + gx * c[None, :] / SIZE + gy * c[:, None] / SIZE)
    part_level = exposure * rng.uniform(0.06, 0.3)
    img = belt * (1 - cov) + part_level * cov
    img = img + rng.normal(0, rng.uniform(0.008, 0.025), size=img.shape)
    return np.clip(np.round(img * 255), 0, 255).astype(np.uint8)


def make(n_per_part, seed):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n_per_part):
        for label, part in enumerate(PARTS):
            xs.append(frame(rng, part))
            ys.append(label)
    order = rng.permutation(len(ys))
    return np.stack(xs)[order], np.asarray(ys, np.int64)[order]


def main():
    for name, n, seed in (("train", 300, 7), ("eval", 80, 8)):
        x, y = make(n, seed)
        np.savez_compressed(os.path.join(HERE, "frames", f"{name}_frames.npz"), frames=x, part=y)
        print(f"{name}: {x.shape} frames, grey levels {x.min()}..{x.max()}")


if __name__ == "__main__":
    main()
