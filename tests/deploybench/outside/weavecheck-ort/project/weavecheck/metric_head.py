"""Prototype head: every defect class owns a few learned prototypes on the unit sphere; a
patch's score for a class is its cosine similarity to the class's nearest prototype, scaled.
New weave types are enrolled by adding prototypes, without retraining the trunk."""
import torch
import torch.nn.functional as F
from torch import nn

from .config import HeadConfig


class PrototypeHead(nn.Module):
    def __init__(self, in_features: int, num_classes: int, cfg: HeadConfig):
        super().__init__()
        self.cfg = cfg
        self.num_classes = num_classes
        self.project = nn.Linear(in_features, cfg.embed_dim)
        g = torch.Generator().manual_seed(1234)
        self.prototypes = nn.Parameter(torch.randn(num_classes * cfg.prototypes_per_class, cfg.embed_dim, generator=g))

    def embed(self, features: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.project(features), dim=-1)

    def similarities(self, emb: torch.Tensor) -> torch.Tensor:
        return emb @ F.normalize(self.prototypes, dim=-1).t()  # (B, num_classes * per_class)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        sim = self.similarities(self.embed(features))
        per_class = sim.view(sim.shape[0], self.num_classes, self.cfg.prototypes_per_class)
        return self.cfg.scale * per_class.amax(dim=-1)
