"""Building blocks shared by the motion networks."""
from torch import nn


def conv_stage(cin, cout, kernel=5):
    """conv1d with stride 2 along time + ReLU."""
    return nn.Sequential(nn.Conv1d(cin, cout, kernel, stride=2, padding=kernel // 2), nn.ReLU())


class WindowClassifier(nn.Module):
    """Base: a stack of conv stages over (N, axes, time), then a linear read-out."""

    def __init__(self, axes, length, widths, classes):
        super().__init__()
        stages, cin = [], axes
        for w in widths:
            stages.append(conv_stage(cin, w))
            cin = w
        self.stages = nn.ModuleDict({f"s{i}": s for i, s in enumerate(stages)})
        self.readout = nn.Linear(cin * (length >> len(widths)), classes)

    def embed(self, x):
        for stage in self.stages.values():
            x = stage(x)
        return x.flatten(1)

    def forward(self, x):
        return self.readout(self.embed(x))
