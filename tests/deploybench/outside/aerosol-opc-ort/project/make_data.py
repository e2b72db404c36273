"""Writes the data stores (opc.stores): the 2023 archive (2,000 spectra, exported as log10
counts), the 2024 holdout (600 spectra, counts per litre) and the three reference sites' dumps
(40 spectra each, counts per litre). Fixed seeds."""
import numpy as np

from opc import stores
from opc.size_dist import sample_set
from opc.spectrum import log_counts

SITE_REGIMES = {"harbour": [3, 3, 3, 4], "quarry": [2, 2, 2, 4], "ring_road": [1, 1, 1, 0, 4]}


def main():
    stores.SITES_DIR.mkdir(parents=True, exist_ok=True)
    counts, labels = sample_set(2000, seed=2023)
    np.savez_compressed(stores.ARCHIVE, log10_counts=log_counts(counts), source=labels)
    counts, labels = sample_set(600, seed=2024)
    np.savez_compressed(stores.HOLDOUT, counts=counts.astype(np.int32), source=labels)
    for i, (site, regimes) in enumerate(SITE_REGIMES.items()):
        counts, _ = sample_set(40, seed=500 + i, kinds=regimes)
        np.savez_compressed(stores.SITES_DIR / f"{site}.npz", counts=counts.astype(np.int32))
    for p in [stores.ARCHIVE, stores.HOLDOUT, *sorted(stores.SITES_DIR.glob("*.npz"))]:
        print(f"wrote {p} ({p.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
