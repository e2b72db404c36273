"""Probe-floor sorter: reads a lot file from the prober, classifies each wafer's failure signature
and routes it (scrap review, process engineering, ship).

A lot file lots/<lot>.npz holds `bins` uint8 (wafers, 48, 48) with the prober's bin codes and,
for lots a yield engineer reviewed, `signature` int64 (wafers,).
"""
import os
from dataclasses import dataclass

import numpy as np
import torch

from probe.config import BIN_FAIL, PATTERNS

LOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lots")

ROUTE = {"none": "ship", "center": "etch-review", "edge_ring": "etch-review", "donut": "cmp-review",
         "scratch": "handling-review", "local_cluster": "defect-review"}


@dataclass
class ProbeLot:
    lot_id: str
    bins: np.ndarray
    signature: np.ndarray = None

    @classmethod
    def load(cls, lot_id):
        with np.load(os.path.join(LOTS, f"{lot_id}.npz")) as z:
            return cls(lot_id, z["bins"], z["signature"] if "signature" in z else None)

    def __len__(self):
        return len(self.bins)


class MapEncoder:
    """Bin codes -> the network's map: 0 off-wafer, 0.5 pass, 1 fail; shape (1, 1, H, W)."""

    def __call__(self, bins):
        m = bins.astype(np.float32) / float(BIN_FAIL)
        return torch.from_numpy(np.ascontiguousarray(m)).reshape(1, 1, *bins.shape)


class SortStation:
    def __init__(self, lot_id="lot_Q4417"):
        self.lot = ProbeLot.load(lot_id)
        self.encode = MapEncoder()

    def wafer_inputs(self, limit=None):
        n = len(self.lot) if limit is None else min(limit, len(self.lot))
        return [(self.encode(self.lot.bins[i]),) for i in range(n)]

    def route(self, infer):
        out = []
        for (x,) in self.wafer_inputs():
            sig = PATTERNS[int(torch.as_tensor(infer(x)).reshape(-1, len(PATTERNS)).argmax(1)[0])]
            out.append((sig, ROUTE[sig]))
        return out


def run_inputs():
    return SortStation().wafer_inputs(limit=10)


def app_eval():
    st = SortStation()
    return st.wafer_inputs(), torch.from_numpy(st.lot.signature)
