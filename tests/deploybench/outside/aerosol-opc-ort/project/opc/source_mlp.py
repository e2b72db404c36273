"""SourceMLP: 16 standardised log-count bins -> 5 source logits (opc.size_dist.SOURCES)."""
from pathlib import Path

import torch
from torch import nn

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "source_mlp.pt"


class SourceMLP(nn.Module):
    def __init__(self, n_bins=16, hidden=64, n_sources=5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_bins, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_sources),
        )

    def forward(self, spectrum):
        return self.body(spectrum)


def load_source_mlp(path=WEIGHTS):
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    net = SourceMLP()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
