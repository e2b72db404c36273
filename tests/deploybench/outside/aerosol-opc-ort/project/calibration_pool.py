"""The INT8 calibration pool (aipc.toml [project] calibration_data).

Static INT8 needs activation ranges that cover every regime the counters meet, so the pool
mixes 16 spectra of the 2023 archive with 16 from each of the three reference sites (harbour:
sea spray, quarry: mineral dust, ring road: traffic): 64 spectra, one input tuple each.
"""
import numpy as np
import torch

from opc import stores
from opc.spectrum import bin_scaler

PER_SOURCE = 16


def _pool_rows():
    archive_rows, _ = stores.archive()
    rows = [archive_rows[:PER_SOURCE]]
    for site in stores.REFERENCE_SITES:
        rows.append(stores.site_dump(site)[:PER_SOURCE])
    return np.concatenate(rows).astype(np.float32)


def reference_mix():
    x = bin_scaler().standardise(_pool_rows())
    return [(torch.from_numpy(x[i:i + 1].copy()),) for i in range(len(x))]
