"""DisturbanceNet: a small MLP over the standardised telemetry, plus the phase currents in amps.

The protection engineers' overcurrent settings are in amps, so besides the MLP's hidden features
the read-out also gets the three phase currents back in their own units (de-standardised with the
fleet constants of the telemetry module).
"""
import os

import torch
from torch import nn

from gridwatch import telemetry

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "disturbance_net.pt")
CURRENTS = [telemetry.FIELDS.index(f) for f in ("i_a_a", "i_b_a", "i_c_a")]


class DisturbanceNet(nn.Module):
    def __init__(self, fields=16, hidden=32, states=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(fields, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.Tanh())
        lo, hi = CURRENTS[0], CURRENTS[-1] + 1
        self.register_buffer("amps_std", torch.from_numpy(telemetry.FIELD_STD[lo:hi]).clone())
        self.register_buffer("amps_mean", torch.from_numpy(telemetry.FIELD_MEAN[lo:hi]).clone())
        self.currents = slice(lo, hi)
        self.readout = nn.Linear(hidden + len(CURRENTS), states)

    def forward(self, snapshot):
        hidden = self.encoder(snapshot)
        amps = snapshot[:, self.currents] * self.amps_std + self.amps_mean
        return self.readout(torch.cat([hidden, amps], dim=1))


def load_disturbance_net():
    net = DisturbanceNet()
    net.load_state_dict(torch.load(WEIGHTS, map_location="cpu", weights_only=True))
    return net.eval()
