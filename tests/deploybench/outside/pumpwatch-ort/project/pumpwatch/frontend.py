"""Signal conditioning in front of the CNN: DC/gravity removal, level estimation with
rail-clipping recovery, level normalisation, and the stopped-pump detector."""
import torch
from torch import nn

from . import FULL_SCALE_G


class PumpFrontEnd(nn.Module):
    def __init__(self, full_scale_g: float = FULL_SCALE_G, noise_floor_g: float = 0.02,
                 rail_fraction: float = 0.995, clip_recovery: float = 2.5):
        super().__init__()
        self.rail_g = rail_fraction * full_scale_g
        self.noise_floor_g = noise_floor_g
        self.clip_recovery = clip_recovery

    def estimate_level(self, accel: torch.Tensor, ac: torch.Tensor) -> torch.Tensor:
        """Overall RMS of the window in g, shape (B, 1, 1)."""
        level = ac.pow(2).mean(dim=(1, 2), keepdim=True).sqrt()
        railed = accel.abs().amax(dim=(1, 2), keepdim=True) >= self.rail_g
        if railed.any():
            # Some windows hit the ADC rail: their flattened peaks take energy out of the RMS,
            # so a severe imbalance reads like a moderate one. Recover the level from the
            # share of samples sitting on the rail (fitted on the test rig, see README).
            on_rail = (accel.abs() >= self.rail_g).to(accel.dtype)
            share = on_rail.mean(dim=(1, 2), keepdim=True)
            recovered = level * (1.0 + self.clip_recovery * share)
            level = torch.where(railed, recovered, level)
        return level

    def forward(self, accel: torch.Tensor):
        ac = accel - accel.mean(dim=-1, keepdim=True)          # gravity and sensor offset
        level = self.estimate_level(accel, ac)
        idle = (level < self.noise_floor_g).flatten(1)          # (B, 1): pump not running
        wave = ac / level.clamp(min=self.noise_floor_g)
        log_level = torch.log10(level.clamp(min=1e-4)).flatten(1)
        return wave, log_level, idle
