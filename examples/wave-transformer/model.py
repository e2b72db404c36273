"""The wave-transformer model: a small transformer encoder that classifies a waveform from a
sequence of frames (8 samples each) of any length up to 64 frames.

linear(8->32) frame embedding + a learned position embedding (the first T of 64 rows) -> 2
transformer encoder layers (torch.nn.TransformerEncoderLayer: 2 heads, width 32, feed-forward
64, post-norm) -> mean over the frames -> linear(32->4): sine, square, sawtooth, triangle.
About 18k parameters; `load_model()` reads the weights train.py wrote.
"""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights.pt")
FRAME, WIDTH, MAX_FRAMES, CLASSES = 8, 32, 64, 4


class WaveTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(FRAME, WIDTH)
        self.pos = nn.Parameter(torch.zeros(1, MAX_FRAMES, WIDTH))
        layer = nn.TransformerEncoderLayer(WIDTH, nhead=2, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, frames):
        x = self.embed(frames) + self.pos[:, : frames.shape[1]]
        x = self.encoder(x)
        return self.head(x.mean(dim=1))


def load_model(path=WEIGHTS):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first (under a minute)")
    model = WaveTransformer()
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
