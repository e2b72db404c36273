"""Builds the chorus cascade with the committed weights (weights/chorus_cascade.pt)."""
from pathlib import Path

import torch

from .cascade import ChorusCascade

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "chorus_cascade.pt"


def load_cascade(path=WEIGHTS):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    net = ChorusCascade()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
