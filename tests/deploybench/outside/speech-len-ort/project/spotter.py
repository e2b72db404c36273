"""KeywordSpotter: three dilated 1-D convolutions (dilation 1, 2, 4) over the frames of a log-mel
sequence, an average over time and a linear layer over the five keywords. Works on any number
of frames.

Input: mels, float32 (N, 8 mel bands, T frames). Output: keyword logits (N, 5).
"""
import os

import torch
from torch import nn

CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints", "spotter.pt")


class KeywordSpotter(nn.Module):
    def __init__(self, bands=8, hidden=(24, 32, 32), keywords=5, kernel=5):
        super().__init__()
        layers, cin = [], bands
        for i, width in enumerate(hidden):
            dilation = 2 ** i
            layers += [
                nn.Conv1d(cin, width, kernel, padding=dilation * (kernel // 2), dilation=dilation),
                nn.BatchNorm1d(width),
                nn.ReLU(),
            ]
            cin = width
        self.encoder = nn.Sequential(*layers)
        self.classifier = nn.Linear(cin, keywords)

    def forward(self, mels):
        frames = self.encoder(mels)
        return self.classifier(frames.mean(dim=2))


def build_spotter():
    spotter = KeywordSpotter()
    state = torch.load(CHECKPOINT, map_location="cpu", weights_only=True)
    spotter.load_state_dict(state)
    spotter.eval()
    return spotter
