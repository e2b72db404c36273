"""CellGradeNet: coulomb counting of the logged current, then a small strided 1-D CNN over
(voltage, C-rate, charged fraction of the rated capacity)."""
import os

import torch
from torch import nn

from . import GRADES, SAMPLE_PERIOD_S, SAMPLES

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "grader_r2.pt")


class CellGradeNet(nn.Module):
    def __init__(self, width: int = 24):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(3, width, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(width, 2 * width, 5, stride=2, padding=2), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * (SAMPLES // 8), 48), nn.ReLU(),
                                  nn.Linear(48, len(GRADES)))

    @staticmethod
    def charged_fraction(c_rate: torch.Tensor) -> torch.Tensor:
        """Coulomb counting: charge put into the cell up to each sample, as a fraction of the
        rated capacity (rectangle rule over the 10 s samples)."""
        return torch.cumsum(c_rate, dim=-1) * (SAMPLE_PERIOD_S / 3600.0)

    def forward(self, step_log: torch.Tensor) -> torch.Tensor:
        """step_log: (B, 2, 96) = normalised voltage, C-rate (grading.dataset.to_step_log)
        -> grade logits (B, 4)."""
        c_rate = step_log[:, 1:2, :]
        q = self.charged_fraction(c_rate)
        x = torch.cat([step_log, 4.0 * q], dim=1)
        return self.head(self.features(x))


def load_grader(path: str = WEIGHTS) -> CellGradeNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` (seconds)")
    net = CellGradeNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
