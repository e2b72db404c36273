"""The digits-pair model: do two 8x8 digit images show the same digit? A Siamese network with
two inputs.

One encoder, shared by both images: conv(1->8) + ReLU -> conv(8->16) + ReLU -> max-pool 2 ->
linear(256->32). The head compares the two embeddings: linear(|a - b|) + linear(a * b) -> 2
logits (0: different digits, 1: the same digit). About 11k parameters; `load_model()` reads
the weights train.py wrote.

The encoder runs once, on both images stacked along the batch: calling it twice (once per
image) shares its weights between two places of the graph, and an INT8 ExecuTorch program whose
XNNPACK graph uses one quantized conv weight twice fails to load (README).
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")


class DigitsPair(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 4 * 4, 32),
        )
        self.diff = nn.Linear(32, 2)
        self.prod = nn.Linear(32, 2, bias=False)

    def forward(self, image_a, image_b):
        n = image_a.shape[0]
        both = self.encoder(torch.cat([image_a, image_b]))
        a, b = both[:n], both[n:]
        return self.diff(torch.abs(a - b)) + self.prod(a * b)


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (a few seconds)")
    model = DigitsPair()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
