"""Pump state classifier: log-power spectrogram -> two temporal convolutions -> state logits."""
import os

import torch
from torch import nn

from .frontend import LogPowerSpectrum
from .spec import ClassifierSpec

PARAMS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "params", "pump_classifier.pt")


class PumpStateClassifier(nn.Module):
    def __init__(self, spec: ClassifierSpec = ClassifierSpec()):
        super().__init__()
        self.spec = spec
        c = spec.channels
        self.frontend = LogPowerSpectrum(spec.spectrum)
        self.temporal = nn.Sequential(
            nn.Conv1d(spec.spectrum.bins, c, 3, padding=1), nn.BatchNorm1d(c), nn.ReLU(),
            nn.Conv1d(c, c, 3, stride=2, padding=1), nn.BatchNorm1d(c), nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c * ((spec.frames + 1) // 2), spec.num_states))

    def forward(self, wave):
        return self.head(self.temporal(self.frontend(wave)))


def load_classifier(path=PARAMS, spec: ClassifierSpec = ClassifierSpec()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    model = PumpStateClassifier(spec)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
