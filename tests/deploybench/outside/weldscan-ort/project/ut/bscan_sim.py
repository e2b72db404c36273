"""Synthetic B-scans of a butt weld, as the station's digitiser records them (12-bit envelope).

Every scan holds the strong interface echo at the top and the back-wall echo near the bottom
(the full-scale end of the range). Flaws are weak reflectors 32-44 dB below full scale:
  crack           tip-diffraction echoes of the crack's two tips, one above the other
  porosity        a cluster of small pores (point reflectors, hyperbolic arcs)
  lack_of_fusion  an extended, inclined planar reflector along the fusion face
plus grain speckle (Rayleigh) of the steel.
"""
import numpy as np

from .geometry import ScanGeometry


def _point(img, zz, xx, x0, z0, amp, spread=3.0, width=0.9):
    arrival = np.sqrt(z0 ** 2 + (0.8 * (xx - x0)) ** 2)
    beam = np.exp(-((xx - x0) ** 2) / (2 * spread ** 2))
    img += amp * beam * np.exp(-((zz - arrival) ** 2) / (2 * width ** 2))


def bscan(rng, flaw, g: ScanGeometry = ScanGeometry()):
    zz, xx = np.mgrid[0:g.depth_samples, 0:g.positions].astype(np.float64)
    img = rng.uniform(0.6, 1.0) * np.exp(-((zz - rng.uniform(1.5, 3.0)) ** 2) / 1.2)
    wall = g.wall_row + rng.uniform(-2, 3) + rng.uniform(-0.06, 0.06) * (xx - g.positions / 2)
    img += rng.uniform(0.35, 0.9) * np.exp(-((zz - wall) ** 2) / 1.5)

    def amp():
        return rng.uniform(0.006, 0.025)

    if flaw == 1:
        x0 = rng.uniform(6, 26)
        z1 = rng.uniform(10, 20)
        z2 = z1 + rng.uniform(8, 15)
        _point(img, zz, xx, x0, z1, amp())
        _point(img, zz, xx, x0, z2, amp())
    elif flaw == 2:
        cx, cz = rng.uniform(8, 24), rng.uniform(12, 30)
        for _ in range(rng.integers(5, 10)):
            _point(img, zz, xx, cx + rng.normal(0, 3.0), cz + rng.normal(0, 1.5), amp(), spread=2.0)
    elif flaw == 3:
        x0, z0 = rng.uniform(6, 16), rng.uniform(12, 28)
        length, slope = rng.uniform(10, 16), rng.uniform(-0.25, 0.25)
        face = (xx >= x0) & (xx <= x0 + length)
        img += amp() * face * np.exp(-((zz - (z0 + slope * (xx - x0))) ** 2) / (2 * 0.9 ** 2))
    img += rng.rayleigh(rng.uniform(0.0012, 0.003), img.shape)
    return np.clip(np.round(img * g.full_scale), 0, g.full_scale).astype(np.uint16)


def generate(n, seed, g: ScanGeometry = ScanGeometry()):
    """n scans -> (uint16 envelope counts (n, depth, positions), flaw class (n,))."""
    rng = np.random.default_rng(seed)
    flaws = rng.integers(0, 4, n)
    return np.stack([bscan(rng, int(f), g) for f in flaws]), flaws.astype(np.int64)
