"""Sparse non-negative unmixing of one reflectance spectrum against the endmember library.

Projected ISTA (iterative shrinkage-thresholding) on
    min_a  0.5 ||D a - x||^2 + lam * sum(a)   subject to a >= 0,
with step 1/L (L: the largest eigenvalue of D^T D), warm-started from the ridge solution
(D^T D + mu L I)^-1 D^T x clipped at 0.  A reading is settled once a sweep moves none of its
abundances by more than `tol`; a settled reading is frozen, and the solver stops when every
reading of the batch has settled, after at most `max_sweeps` sweeps (the instrument's
worst-case time per trigger).
"""
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


@dataclass(frozen=True)
class UnmixSettings:
    max_sweeps: int = 16     # hard cap: the instrument must answer within one trigger period
    tol: float = 1e-3        # abundance change per sweep that counts as settled
    sparsity: float = 2e-3   # lam, the L1 weight (favours few endmembers per footprint)
    ridge: float = 1e-4      # mu, relative ridge of the warm start


class SparseUnmixer(nn.Module):
    def __init__(self, library: np.ndarray, settings: UnmixSettings = UnmixSettings()):
        super().__init__()
        d = torch.as_tensor(library, dtype=torch.float64)           # (BANDS, M)
        gram = d.T @ d
        lipschitz = torch.linalg.eigvalsh(gram).max()
        ridge = gram + settings.ridge * lipschitz * torch.eye(gram.shape[0], dtype=gram.dtype)
        self.settings = settings
        self.register_buffer("warm", torch.linalg.solve(ridge, d.T).float())  # (M, BANDS)
        self.register_buffer("gram", (gram / lipschitz).float())               # (M, M)
        self.register_buffer("proj", (d.T / lipschitz).float())                # (M, BANDS)
        self.shrink = float(settings.sparsity / lipschitz)

    def _sweep(self, a, target):
        # one projected gradient step: a - (D^T D a - D^T x)/L - lam/L, clipped at 0
        return torch.relu(a - F.linear(a, self.gram) + target - self.shrink)

    def forward(self, reflectance):
        target = F.linear(reflectance, self.proj)                     # D^T x / L
        a = torch.relu(F.linear(reflectance, self.warm))
        settled = torch.zeros_like(a[:, :1], dtype=torch.bool)
        for sweep in range(self.settings.max_sweeps):
            nxt = self._sweep(a, target)
            moved = (nxt - a).abs().amax(dim=1, keepdim=True)
            a = torch.where(settled, a, nxt)
            settled = settled | (moved < self.settings.tol)
            if settled.all():
                break
        return a
