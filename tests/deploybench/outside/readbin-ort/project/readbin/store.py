"""Loads the trained ReadBinner."""
import os

import torch

from readbin.encoder import ReadBinner

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "readbinner.pt")


def load_binner(path: str = WEIGHTS) -> ReadBinner:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (under a minute)")
    torch.manual_seed(0)
    model = ReadBinner()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
