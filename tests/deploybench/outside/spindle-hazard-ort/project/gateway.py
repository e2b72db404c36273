"""The shop-floor gateway's call into the deployed network.

Once per shift the gateway collects one band-energy snapshot per spindle (the front end already
delivers log10 band energies, float32, the network's own input) and scores the whole cell in one
batch; a single spindle is re-scored on demand after a crash or a bearing swap.
`run_inputs()` is that contract for aipc: the batches the gateway really feeds.
"""
import numpy as np

import catalog

CELL_SIZE = 48  # spindles per production cell


def shift_batches():
    energies = catalog._snapshots()["eval_energies"]
    cell = np.ascontiguousarray(energies[:CELL_SIZE])
    on_demand = np.ascontiguousarray(energies[CELL_SIZE:CELL_SIZE + 1])
    return [cell, on_demand]


def run_inputs():
    return [(batch,) for batch in shift_batches()]
