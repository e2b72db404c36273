"""Synthetic 8-bit camera frames of glazed tiles. The glaze has a mottled texture; defects are
a hairline crack (a thin dark polyline), pinholes (a few dark dots), crawling (a patch where the
glaze pulled back and the lighter body shows). About 40 % of the frames are taken while the
glazing booth's strobe fires: 12-25 % of the light and more sensor noise."""
import numpy as np

from .config import CameraSpec

CAM = CameraSpec()


def _texture(rng, s):
    base = rng.normal(0, 1, (s // 4 + 1, s // 4 + 1))
    up = np.kron(base, np.ones((4, 4)))[:s, :s]
    return 0.62 + 0.05 * up + 0.02 * rng.normal(0, 1, (s, s))


def _crack(img, rng, s):
    x, y = rng.uniform(4, s - 4, 2)
    ang = rng.uniform(0, np.pi)
    for _ in range(3):
        ang += rng.normal(0, 0.4)
        for t in np.linspace(0, rng.uniform(6, 12), 30):
            xi, yi = int(x + t * np.cos(ang)), int(y + t * np.sin(ang))
            if 0 <= xi < s and 0 <= yi < s:
                img[yi, xi:xi + 2] -= rng.uniform(0.3, 0.4)
        x, y = x + 10 * np.cos(ang), y + 10 * np.sin(ang)


def _pinholes(img, rng, s):
    for _ in range(rng.integers(3, 7)):
        cx, cy = rng.integers(2, s - 2, 2)
        img[cy - 1:cy + 2, cx - 1:cx + 2] -= rng.uniform(0.3, 0.4)


def _crawl(img, rng, s):
    cx, cy = rng.uniform(8, s - 8, 2)
    rx, ry = rng.uniform(3, 7, 2)
    yy, xx = np.mgrid[:s, :s]
    img[((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2 < 1] += rng.uniform(0.18, 0.28)


def frame(defect, rng, s=CAM.side):
    img = _texture(rng, s)
    if defect == 1:
        _crack(img, rng, s)
    elif defect == 2:
        _pinholes(img, rng, s)
    elif defect == 3:
        _crawl(img, rng, s)
    if rng.random() < 0.4:                       # strobe shared with the glazing booth
        img = img * rng.uniform(0.12, 0.25) + rng.normal(0, 0.006, (s, s))
    else:
        img = img * rng.uniform(0.85, 1.15) + rng.normal(0, 0.01, (s, s))
    return np.clip(np.round(img * CAM.full_scale), 0, 255).astype(np.uint8)


def generate(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    return np.stack([frame(d, rng) for d in labels]), labels.astype(np.int64)
