"""ChorusCascade: a three-exit CNN for the battery-powered dawn-chorus recorders.

Most clips at dawn are loud, close calls that the first stage already classifies with
confidence; running the full network on them wastes battery. The cascade therefore stops at
the first exit whose softmax confidence reaches EXIT_CONFIDENCE and returns that exit's logits;
faint calls go on to the deeper stages. Training (train.py) optimises all three exits jointly.

    stage 1  1 -> 12 ch, 16x32 -> 8x16   exit 1: avg-pool 2x4 -> 12x4x4 -> 4 logits
    stage 2 12 -> 16 ch,  8x16 -> 4x8    exit 2: avg-pool 2x2 -> 16x2x4 -> 4 logits
    stage 3 16 -> 32 ch,  4x8  -> 2x4    exit 3: 32x2x4 -> 4 logits
"""
from torch import nn

from .blocks import ConfidenceGate, ConvStage, ExitHead

N_CLASSES = 4
EXIT_CONFIDENCE = 0.9


class ChorusCascade(nn.Module):
    def __init__(self, exit_confidence=EXIT_CONFIDENCE):
        super().__init__()
        self.stages = nn.ModuleList([ConvStage(1, 12), ConvStage(12, 16), ConvStage(16, 32)])
        self.exits = nn.ModuleList([
            ExitHead(12, (4, 4), (2, 4), N_CLASSES),
            ExitHead(16, (2, 4), (2, 2), N_CLASSES),
            ExitHead(32, (2, 4), (1, 1), N_CLASSES),
        ])
        self.gate = ConfidenceGate(exit_confidence)

    def forward(self, spectrogram):
        h = spectrogram
        for stage, head in zip(self.stages, self.exits):
            h = stage(h)
            logits = head(h)
            if self.gate(logits):
                break
        return logits

    def every_exit(self, spectrogram):
        """The logits of all three exits (training and the exit statistics)."""
        h, out = spectrogram, []
        for stage, head in zip(self.stages, self.exits):
            h = stage(h)
            out.append(head(h))
        return out
