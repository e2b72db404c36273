"""The gateway's upload store. An apiary's monitors record synchronously, so one upload (a
"bundle") holds the clips of every hive of the apiary, all of the same length: 3 s on the
regular schedule, up to 8 s when the monitor's activity trigger extends the recording.

On disk (data/<store>.npz): for bundle k, `k:codes` uint8 (hives, frames, 32) and `k:states`
int64 (hives,), the colony states the beekeepers confirmed (-1 when unknown).
"""
import os
from dataclasses import dataclass

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")


@dataclass
class Bundle:
    apiary: str
    codes: np.ndarray      # (hives, frames, 32) uint8
    states: np.ndarray     # (hives,)

    @property
    def hives(self) -> int:
        return self.codes.shape[0]

    @property
    def frames(self) -> int:
        return self.codes.shape[1]


def read_store(name: str):
    with np.load(os.path.join(DATA, name + ".npz")) as z:
        keys = sorted({k.split(":")[0] for k in z.files})
        return [Bundle(k, z[k + ":codes"], z[k + ":states"]) for k in keys]


def write_store(name: str, bundles):
    arrays = {}
    for b in bundles:
        arrays[b.apiary + ":codes"] = b.codes
        arrays[b.apiary + ":states"] = b.states
    path = os.path.join(DATA, name + ".npz")
    np.savez_compressed(path, **arrays)
    return path
