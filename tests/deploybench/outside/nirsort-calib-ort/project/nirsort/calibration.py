"""The INT8 calibration pool: flakes from last week's QA export of the line, plus the lab's
bench-spectrometer sessions, which cover the rarer grades (PVC, PS, LDPE films) better."""
import numpy as np
import torch
from torch.utils.data import ConcatDataset, Dataset

from .archive import ScanArchive

POOL_SESSIONS = ("qa_export_wk12.npz", "bench_lab_march.npz")


class CalibrationPool(Dataset):
    def __init__(self, sessions=POOL_SESSIONS):
        self.scans = ConcatDataset([ScanArchive(name) for name in sessions])

    def __len__(self):
        return len(self.scans)

    def __getitem__(self, i):
        scan = self.scans[i]
        spectrum = np.asarray(scan.values, dtype=np.float32)
        return torch.from_numpy(spectrum).reshape(1, 1, -1)
