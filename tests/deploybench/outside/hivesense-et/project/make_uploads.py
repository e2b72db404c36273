"""Write the committed upload stores (synthetic, fixed seeds):
  data/uploads_2024w18.npz   acceptance: 40 apiary bundles, 1-8 hives, 48-128 frames each
  data/uploads_commissioning.npz   calibration: 8 bundles of the commissioning week
"""
import os

import numpy as np

from hivesense.colony_sim import STATES, clip
from hivesense.uploads import Bundle, write_store


def bundles(n_bundles, seed, prefix):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_bundles):
        hives = int(rng.integers(1, 9))
        frames = 48 if rng.random() < 0.4 else int(rng.integers(49, 129))   # regular schedule or triggered
        states = rng.integers(0, len(STATES), hives)
        codes = np.stack([clip(int(s), frames, rng) for s in states])
        out.append(Bundle(f"{prefix}{k:03d}", codes, states.astype(np.int64)))
    return out


if __name__ == "__main__":
    for name, n, seed, prefix in (("uploads_2024w18", 40, 18, "ap"), ("uploads_commissioning", 8, 4, "cm")):
        bs = bundles(n, seed, prefix)
        path = write_store(name, bs)
        print(f"wrote {path}: {len(bs)} bundles, {sum(b.hives for b in bs)} clips, "
              f"frames {sorted({b.frames for b in bs})[:3]}..{max(b.frames for b in bs)}, {os.path.getsize(path)} bytes")
