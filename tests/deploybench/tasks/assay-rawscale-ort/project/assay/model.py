"""AssayNet: a small MLP over the 13 raw measurements. The training script folds the
standardisation (the training set's mean and spread) into the first layer, so the serving code
feeds the rows as the instrument delivers them."""
import os

import torch
from torch import nn

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assay_net.pt")


class AssayNet(nn.Module):
    def __init__(self, features=13, hidden=48, cultivars=3):
        super().__init__()
        self.classify = nn.Sequential(
            nn.Linear(features, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, cultivars),
        )

    def forward(self, measurements):
        return self.classify(measurements)


def load_trained():
    net = AssayNet()
    net.load_state_dict(torch.load(WEIGHTS, weights_only=True))
    return net.eval()
