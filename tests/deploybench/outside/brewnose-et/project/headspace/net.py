"""SniffNet: the eight response traces of one sniff cycle -> fermenter state logits."""
import os

import torch
from torch import nn

from .board import VERDICTS, BoardConfig

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "sniffnet.pt")


class SniffNet(nn.Module):
    def __init__(self, board: BoardConfig = BoardConfig(), width: int = 32):
        super().__init__()
        n = len(board.elements)
        self.trunk = nn.Sequential(
            nn.Conv1d(n, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm1d(2 * width), nn.ReLU(),
        )
        self.head = nn.Linear(2 * width * (board.steps // 4), len(VERDICTS))

    def forward(self, response):
        return self.head(self.trunk(response).flatten(1))


def load_sniffnet(path: str = WEIGHTS) -> SniffNet:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} missing: run `python train.py`")
    net = SniffNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
