"""Per-wafer map conditioning in front of the backbone.

The model reads a map holding 0 (off-wafer site), 0.5 (pass die) and 1 (fail die) and turns it
into two planes for the backbone: the fail plane and the wafer mask. Wafers from dense-fail lots
get their local background fail density taken off the fail plane first: on such a wafer the
signature differs from its surroundings by a few tens of percent and the plain fail plane looks
like noise to the backbone.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import ConditionerConfig


class DieMapConditioner(nn.Module):
    def __init__(self, cfg: ConditionerConfig):
        super().__init__()
        self.cfg = cfg
        k = cfg.background_window
        self.register_buffer("box", torch.full((1, 1, k, k), 1.0 / (k * k)), persistent=False)

    @staticmethod
    def _planes(m):
        fails = F.relu(2.0 * m - 1.0)          # 1 on fail dies, 0 elsewhere
        on_wafer = torch.clamp(2.0 * m, 0.0, 1.0)   # 1 on every die site
        return fails, on_wafer

    def _local_density(self, plane, on_wafer):
        pad = self.cfg.background_window // 2
        num = F.conv2d(plane, self.box, padding=pad)
        den = F.conv2d(on_wafer, self.box, padding=pad)
        return num / (den + 1e-3)

    @staticmethod
    def _yield_loss(fails, on_wafer):
        return fails.sum() / on_wafer.sum().clamp_min(1.0)

    def _condition_one(self, m):
        fails, on_wafer = self._planes(m)
        loss = self._yield_loss(fails, on_wafer)
        if loss > self.cfg.dense_loss:
            background = self._local_density(fails, on_wafer)
            fails = fails - self.cfg.background_keep * background
            fails = fails * on_wafer
            fails = fails / (1.0 - self.cfg.background_keep * loss)
        return torch.cat([fails, on_wafer], dim=1)

    def forward(self, maps):
        # one wafer at a time: the dense-lot test is a property of each wafer
        return torch.cat([self._condition_one(maps[i:i + 1]) for i in range(maps.shape[0])], dim=0)
