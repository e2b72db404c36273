"""Synthetic line-camera frames (fixed seeds): one piece of produce on the conveyor belt.

Frames are what the line camera's SDK hands over: uint8, (40, 40, 3), channels in B, G, R order."""
import numpy as np

KINDS = ("tomato", "lime", "plum", "chili", "bean", "eggplant")
# RGB base colour and shape of each kind
_LOOK = {
    "tomato": ((205, 45, 35), "round"),
    "lime": ((70, 175, 55), "round"),
    "plum": ((80, 45, 175), "round"),
    "chili": ((200, 35, 45), "long"),
    "bean": ((60, 165, 70), "long"),
    "eggplant": ((75, 40, 165), "long"),
}
FRAME = 40


def render(count, seed):
    """-> (frames uint8 (count, 40, 40, 3) BGR, kinds int64 (count,))."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:FRAME, 0:FRAME].astype(np.float32)
    frames = np.empty((count, FRAME, FRAME, 3), dtype=np.uint8)
    kinds = rng.integers(0, len(KINDS), size=count).astype(np.int64)
    for i in range(count):
        rgb, shape = _LOOK[KINDS[kinds[i]]]
        belt = np.array([120, 105, 90], np.float32) * rng.uniform(0.8, 1.15)
        img = belt + rng.normal(0, 9, (FRAME, FRAME, 3)).astype(np.float32)
        cy, cx = rng.uniform(15, 25, size=2)
        if shape == "round":
            r = rng.uniform(6.5, 10.5)
            d = ((yy - cy) ** 2 + (xx - cx) ** 2) / r ** 2
        else:
            a = rng.uniform(0, np.pi)
            u = (xx - cx) * np.cos(a) + (yy - cy) * np.sin(a)
            v = -(xx - cx) * np.sin(a) + (yy - cy) * np.cos(a)
            d = (u / rng.uniform(10, 13)) ** 2 + (v / rng.uniform(3, 4.5)) ** 2
        colour = np.clip(np.array(rgb, np.float32) + rng.normal(0, 14, 3), 0, 255)
        shade = np.clip(1.15 - 0.35 * d, 0.6, 1.2)[..., None] * rng.uniform(0.75, 1.15)
        mask = (d <= 1.0)[..., None]
        img = np.where(mask, colour * shade + rng.normal(0, 6, (FRAME, FRAME, 3)), img)
        frames[i] = np.clip(img, 0, 255).astype(np.uint8)[..., ::-1]  # RGB -> the camera's BGR
    return frames, kinds
