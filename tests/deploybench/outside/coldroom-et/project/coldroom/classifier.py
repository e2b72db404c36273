"""UnitStateMLP: the state classifier over one standardised telemetry snapshot."""
import os

import torch
from torch import nn

from . import FEATURES, STATES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "unit_state_mlp.pt")


class UnitStateMLP(nn.Module):
    def __init__(self, hidden: int = 64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(len(FEATURES), hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden), nn.ReLU())
        self.state_head = nn.Linear(hidden, len(STATES))

    def forward(self, snapshot: torch.Tensor) -> torch.Tensor:
        return self.state_head(self.trunk(snapshot))


def load_unit_model(path: str = WEIGHTS) -> UnitStateMLP:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    model = UnitStateMLP()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
