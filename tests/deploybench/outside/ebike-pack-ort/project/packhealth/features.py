"""Hand-made physical features the health network reads next to the raw channels."""
import torch
from torch import nn

V_NOMINAL, V_SPAN = 38.0, 4.0
I_SPAN = 10.0
T_REF, T_SPAN = 25.0, 10.0


class SagTracker(nn.Module):
    """Voltage sag below the running peak and temperature rise since the window started.

    The running peak (peak-hold) is what the BMS firmware's sag alarm tracks: a weak cell group
    or a loose contact shows as a deep drop below the highest voltage seen so far in the window,
    whatever the state of charge.
    """

    def __init__(self, sag_scale=1.0, rise_scale=2.0):
        super().__init__()
        self.sag_scale = sag_scale
        self.rise_scale = rise_scale

    def _peak_hold(self, volt):
        peak, _ = torch.cummax(volt, dim=-1)
        return peak

    def forward(self, telemetry):
        volt, current, temp = telemetry[:, 0:1], telemetry[:, 1:2], telemetry[:, 2:3]
        sag = (self._peak_hold(volt) - volt) / self.sag_scale
        rise = (temp - temp[..., :1]) / self.rise_scale
        return torch.cat([
            (volt - V_NOMINAL) / V_SPAN,
            current / I_SPAN,
            (temp - T_REF) / T_SPAN,
            sag,
            rise,
        ], dim=1)
