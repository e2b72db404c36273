"""Ground-cover classifier: unmix, then classify the composition of the footprint."""
import torch
from torch import nn

from .field import COVERS
from .unmixing import SparseUnmixer, UnmixSettings


class CoverClassifier(nn.Module):
    def __init__(self, library, settings: UnmixSettings = UnmixSettings(), hidden=48):
        super().__init__()
        m = library.shape[1]
        self.unmix = SparseUnmixer(library, settings)
        self.head = nn.Sequential(nn.Linear(m + 1, hidden), nn.ReLU(), nn.Linear(hidden, len(COVERS)))

    def composition(self, reflectance):
        a = self.unmix(reflectance)
        brightness = a.sum(dim=1, keepdim=True)             # follows the illumination
        return torch.cat([a / (brightness + 1e-3), brightness], dim=1)

    def forward(self, reflectance):
        return self.head(self.composition(reflectance))
