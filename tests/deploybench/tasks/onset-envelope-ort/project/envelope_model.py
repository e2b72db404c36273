"""The onset-envelope model: RunningPeak (layers.py) then two strided conv1d layers and a linear
head, one nn.Sequential; classifies a clip's envelope as pluck, swell, steady or double."""
import os

import torch
from torch import nn

from layers import RunningPeak

WEIGHTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "envelope_weights.pt")


def make_model():
    return nn.Sequential(
        RunningPeak(),
        nn.Conv1d(2, 12, 7, stride=2, padding=3), nn.ReLU(),
        nn.Conv1d(12, 24, 5, stride=2, padding=2), nn.ReLU(),
        nn.Flatten(),
        nn.Linear(24 * 24, 4),
    )


def pretrained(path=WEIGHTS_FILE):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py` first (seconds)")
    model = make_model()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
