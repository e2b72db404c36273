"""RegimeTagger: PathFeatures -> three dilated 1-D convolutions -> mean over time -> regime logits."""
from pathlib import Path

import torch
from torch import nn

from regime.layers import PathFeatures
from regime.tape import REGIMES

WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "regime_tagger.pt"


class RegimeTagger(nn.Module):
    def __init__(self, width: int = 32):
        super().__init__()
        self.features = PathFeatures()
        self.encoder = nn.Sequential(
            nn.Conv1d(4, width, 5, padding=2), nn.GELU(),
            nn.Conv1d(width, width, 5, padding=4, dilation=2), nn.GELU(),
            nn.Conv1d(width, width, 5, padding=8, dilation=4), nn.GELU(),
        )
        self.head = nn.Linear(width, len(REGIMES))

    def forward(self, rel_close):
        h = self.encoder(self.features(rel_close))
        return self.head(h.mean(dim=-1))


def load_tagger(path: Path = WEIGHTS) -> RegimeTagger:
    if not Path(path).is_file():
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    m = RegimeTagger()
    m.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return m.eval()
