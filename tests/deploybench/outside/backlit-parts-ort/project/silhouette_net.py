"""SilhouetteNet: part-type classifier for the backlit conveyor camera.

The frame is first binarised with an automatic threshold (ISODATA / Ridler-Calvard: start at
the frame's mean grey level, then move the threshold to the midpoint of the mean grey levels
below and above it until it stops moving), so the classifier sees the part's silhouette
whatever the backlight exposure. The binarisation is soft (a sigmoid whose slope follows the
belt/part contrast) so the network stays differentiable end to end. A small CNN classifies the
silhouette mask.
"""
import os

import torch
from torch import nn

PARTS = ("washer", "hex_nut", "bolt", "l_bracket")
CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoint", "silhouette_net.pt")


class IsodataBinarize(nn.Module):
    def __init__(self, max_iter=12, tol=1e-4, softness=0.08):
        super().__init__()
        self.max_iter = max_iter
        self.tol = tol
        self.softness = softness  # sigmoid width, as a fraction of the belt/part contrast

    def forward(self, frame):
        flat = frame.flatten(1)
        threshold = flat.mean(dim=1, keepdim=True)
        shift = torch.ones_like(threshold)
        steps = 0
        while steps < self.max_iter and shift.max() > self.tol:
            below = (flat < threshold).to(flat.dtype)
            above = 1.0 - below
            dark = (flat * below).sum(dim=1, keepdim=True) / below.sum(dim=1, keepdim=True).clamp_min(1.0)
            bright = (flat * above).sum(dim=1, keepdim=True) / above.sum(dim=1, keepdim=True).clamp_min(1.0)
            refined = 0.5 * (dark + bright)
            shift = (refined - threshold).abs()
            threshold = refined
            steps += 1
        contrast = (bright - dark).clamp_min(1e-3)
        scale = (1.0 / (self.softness * contrast)).view(-1, 1, 1, 1)
        return torch.sigmoid((threshold.view(-1, 1, 1, 1) - frame) * scale)


class SilhouetteNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.binarize = IsodataBinarize()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classify = nn.Sequential(nn.Flatten(), nn.Linear(16 * 5 * 5, 32), nn.ReLU(), nn.Linear(32, len(PARTS)))

    def forward(self, frame):
        return self.classify(self.features(self.binarize(frame)))


def build_model(path=CHECKPOINT):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` (a few seconds)")
    net = SilhouetteNet()
    net.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return net.eval()
