"""Builds the deployed CascadeEncoder with the weights train.py wrote."""
import os

import torch

from triage.cascade import CascadeEncoder
from triage.settings import DEFAULT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WEIGHTS = os.path.join(ROOT, "artifacts", "cascade_encoder.pt")


def load_cascade(path: str = WEIGHTS) -> CascadeEncoder:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (about half a minute)")
    torch.manual_seed(DEFAULT.seed)
    model = CascadeEncoder(DEFAULT)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
