"""BearingCNN: three Conv1d stages over the two accelerometer axes (64 -> 16 time steps), then a
linear layer over the whole 32 x 16 feature map to the 4 condition logits (about 6.8k parameters).
The head keeps the time order: impacts spacing is what tells the faults apart."""
import os

import torch
import torch.nn as nn

STATE_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "state", "bearing_cnn.pt")
FEATURES, STEPS = 32, 16


class ConvStage(nn.Module):
    def __init__(self, cin, cout, k, stride):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, stride=stride, padding=k // 2, bias=False)
        self.norm = nn.BatchNorm1d(cout)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class BearingCNN(nn.Module):
    def __init__(self, axes=2, conditions=4):
        super().__init__()
        self.stages = nn.Sequential(ConvStage(axes, 16, 7, 1), ConvStage(16, 24, 5, 2), ConvStage(24, FEATURES, 3, 2))
        self.head = nn.Linear(FEATURES * STEPS, conditions)

    def forward(self, window):
        maps = self.stages(window)
        return self.head(maps.reshape(-1, FEATURES * STEPS))


def load_bearing_cnn():
    model = BearingCNN()
    model.load_state_dict(torch.load(STATE_FILE, map_location="cpu", weights_only=True))
    model.eval()
    return model
