"""Noise-adaptive smoothing in front of the classifier.

Meters differ by more than an order of magnitude in front-end noise. Rather than smoothing
every window the same (which blurs notches and transients on clean meters), the smoother
estimates each window's noise from its second difference (a 50 Hz sine has almost none at
3.2 kHz) and applies a learned residual smoothing pass as many times as that noise calls for:
one pass per `noise_per_pass` of noise, at most `max_passes`.
"""
import math
from dataclasses import dataclass

import torch
from torch import nn

# E|d2 n| for white noise of std 1: d2 n has std sqrt(6), and E|z| = sqrt(2/pi) for z ~ N(0, 1)
_D2_ABS_PER_SIGMA = math.sqrt(6.0) * math.sqrt(2.0 / math.pi)


@dataclass(frozen=True)
class SmootherConfig:
    kernel: int = 9
    noise_per_pass: float = 0.02
    max_passes: int = 6


class AdaptiveSmoother(nn.Module):
    def __init__(self, cfg: SmootherConfig = SmootherConfig()):
        super().__init__()
        self.cfg = cfg
        self.kernel = nn.Conv1d(1, 1, cfg.kernel, padding=cfg.kernel // 2, bias=False)
        nn.init.constant_(self.kernel.weight, 0.0)
        self.gain = nn.Parameter(torch.tensor(0.5))

    @staticmethod
    def noise_level(x: torch.Tensor) -> torch.Tensor:
        """(batch,) noise std estimate of each window, in p.u."""
        d2 = x[..., 2:] - 2.0 * x[..., 1:-1] + x[..., :-2]
        return d2.abs().mean(dim=(1, 2)) / _D2_ABS_PER_SIGMA

    def pass_counts(self, x: torch.Tensor) -> torch.Tensor:
        """(batch,) how many smoothing passes each window gets."""
        return torch.clamp(torch.ceil(self.noise_level(x) / self.cfg.noise_per_pass), 0, self.cfg.max_passes)

    def _passes_for_batch(self, counts: torch.Tensor) -> int:
        # the noisiest window of the batch sets how many passes run; quieter ones stop early
        return int(counts.max().item())

    def _smooth_once(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.gain * self.kernel(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        counts = self.pass_counts(x)
        h = x
        for i in range(self._passes_for_batch(counts)):
            h = torch.where((counts > i).reshape(-1, 1, 1), self._smooth_once(h), h)
        return h
