"""Weld inspection station: after each weld seam is scanned, the B-scans are classified and
flawed seams are flagged for a level-2 operator.

The digitiser's envelope frames are logged per job as scans/<job>.npz: `counts` uint16
(scans, depth, positions), and `flaws` where a level-2 operator reviewed the job.
"""
import os
from dataclasses import dataclass

import numpy as np
import torch

from ut.geometry import FLAW_CLASSES, ScanGeometry

SCANS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scans")


@dataclass
class ScanJob:
    counts: np.ndarray
    flaws: np.ndarray = None

    @classmethod
    def load(cls, job):
        with np.load(os.path.join(SCANS, job)) as z:
            return cls(z["counts"], z["flaws"] if "flaws" in z.files else None)


class EnvelopeFrame:
    """Digitiser counts -> amplitude as a fraction of full scale, shaped (1, 1, depth, positions)."""

    def __init__(self, geometry: ScanGeometry = ScanGeometry()):
        self.g = geometry

    def __call__(self, counts: np.ndarray) -> torch.Tensor:
        if counts.shape[-2:] != (self.g.depth_samples, self.g.positions):
            raise ValueError(f"B-scan {counts.shape}, the station records ({self.g.depth_samples}, {self.g.positions})")
        amp = counts.astype(np.float32) / np.float32(self.g.full_scale)
        return torch.from_numpy(np.ascontiguousarray(amp)).reshape(-1, 1, self.g.depth_samples, self.g.positions)


class SeamInspector:
    def __init__(self, job="weld_job_0412.npz"):
        self.job = ScanJob.load(job)
        self.frame = EnvelopeFrame()

    def inputs(self, limit=None):
        counts = self.job.counts if limit is None else self.job.counts[:limit]
        return [(self.frame(c),) for c in counts]

    def flag(self, classify):
        """classify: one input tuple -> logits. Returns the indices of scans to review."""
        calls = [FLAW_CLASSES[int(np.asarray(classify(*x)).argmax())] for x in self.inputs()]
        return [i for i, c in enumerate(calls) if c != "no_flaw"]


def run_inputs():
    return SeamInspector().inputs(limit=8)


def app_eval():
    s = SeamInspector()
    return s.inputs(), torch.from_numpy(s.job.flaws)
