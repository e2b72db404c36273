"""Building blocks of the chorus cascade."""
import torch
from torch import nn


class ConvStage(nn.Module):
    """3x3 conv, batch norm, ReLU, 2x2 max pool: halves both axes of the spectrogram."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )

    def forward(self, x):
        return self.body(x)


class ExitHead(nn.Module):
    """Average-pools a feature map to a small grid and classifies it."""

    def __init__(self, channels, grid_hw, pool, n_classes):
        super().__init__()
        self.pool = nn.AvgPool2d(pool) if pool != (1, 1) else nn.Identity()
        self.fc = nn.Linear(channels * grid_hw[0] * grid_hw[1], n_classes)

    def forward(self, h):
        return self.fc(torch.flatten(self.pool(h), 1))


class ConfidenceGate(nn.Module):
    """True when every clip of the batch is classified with a top softmax probability of at
    least `threshold` (the recorder runs one clip at a time, so in the field: this clip)."""

    def __init__(self, threshold):
        super().__init__()
        self.threshold = threshold

    def forward(self, logits):
        top = torch.softmax(logits, dim=-1).amax(dim=-1)
        return (top >= self.threshold).all()
