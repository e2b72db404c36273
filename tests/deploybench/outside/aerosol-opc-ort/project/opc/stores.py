"""The project's data stores (data/).

archive_2023.npz      the 2023 labelled archive the data team exported for training:
                      `log10_counts` (N, 16) float32 = log10(counts per litre + 1), `source` labels
holdout_2024.npz      the labelled 2024 holdout, as the counters report it:
                      `counts` (N, 16) int64 counts per litre, `source` labels
sites/<site>.npz      unlabelled dumps of the three reference sites (harbour, quarry, ring road),
                      pulled from the counters' SD cards: `counts` (N, 16) counts per litre
"""
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "data"
ARCHIVE = DATA / "archive_2023.npz"
HOLDOUT = DATA / "holdout_2024.npz"
SITES_DIR = DATA / "sites"
REFERENCE_SITES = ("harbour", "quarry", "ring_road")


def archive():
    """(log10 spectra (N, 16) float32, labels (N,) int64) of the 2023 archive."""
    with np.load(ARCHIVE) as z:
        return z["log10_counts"].astype(np.float32), z["source"].astype(np.int64)


def holdout():
    """(counts per litre (N, 16), labels (N,)) of the 2024 holdout."""
    with np.load(HOLDOUT) as z:
        return z["counts"], z["source"].astype(np.int64)


def site_dump(site):
    """Spectra (N, 16) of one reference site's SD-card dump."""
    with np.load(SITES_DIR / f"{site}.npz") as z:
        return z["counts"]
