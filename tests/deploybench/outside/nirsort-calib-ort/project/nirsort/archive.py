"""Capture sessions on disk (captures/<name>.npz) and a Dataset over them.

A session holds `values` (n, BANDS), its `unit` ("counts" from a scanner, "reflectance" when the
QA tool exported it already calibrated), the scanner's `dark` / `white` references for counts,
and `labels` when the session was hand-sorted."""
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np
from torch.utils.data import Dataset

CAPTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "captures")


@dataclass
class Scan:
    values: np.ndarray
    unit: str
    dark: Optional[np.ndarray] = None
    white: Optional[np.ndarray] = None
    label: int = -1
    source: str = ""


class ScanArchive(Dataset):
    def __init__(self, name):
        self.name = name
        with np.load(os.path.join(CAPTURES, name)) as z:
            self.values = z["values"]
            self.unit = str(z["unit"])
            self.dark = z["dark"] if "dark" in z else None
            self.white = z["white"] if "white" in z else None
            self.labels = z["labels"] if "labels" in z else None

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        label = int(self.labels[i]) if self.labels is not None else -1
        return Scan(self.values[i], self.unit, self.dark, self.white, label, self.name)
