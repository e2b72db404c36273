"""Prototype part head (ProtoPNet style): the backbone's feature map is cut into patches, each
learned prototype is compared with every patch, and a class is scored from how close its
prototypes come to some patch of the crop."""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class PrototypeSpec:
    feature_dim: int = 32       # backbone channels
    proto_dim: int = 16         # add-on projection the prototypes live in
    per_class: int = 2
    classes: int = 10
    eps: float = 1e-4

    @property
    def count(self) -> int:
        return self.per_class * self.classes


class PrototypeHead(nn.Module):
    def __init__(self, spec: PrototypeSpec):
        super().__init__()
        self.spec = spec
        self.add_on = nn.Sequential(
            nn.Conv2d(spec.feature_dim, spec.proto_dim, 1), nn.ReLU(),
            nn.Conv2d(spec.proto_dim, spec.proto_dim, 1), nn.Sigmoid(),
        )
        self.prototypes = nn.Parameter(torch.rand(spec.count, spec.proto_dim))
        identity = torch.zeros(spec.classes, spec.count)
        for k in range(spec.count):
            identity[k // spec.per_class, k] = 1.0
        self.register_buffer("class_identity", identity)
        self.last_layer = nn.Linear(spec.count, spec.classes, bias=False)
        self.last_layer.weight.data.copy_(identity - 0.5 * (1 - identity))

    @staticmethod
    def _patches(fmap: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, H*W, C): one row per spatial patch."""
        return fmap.flatten(2).transpose(1, 2)

    def _patch_distances(self, patches: torch.Tensor) -> torch.Tensor:
        """Euclidean distance of every patch to every prototype: (N, P, C) -> (N, P, K)."""
        return torch.cdist(patches, self.prototypes.unsqueeze(0))

    def similarities(self, fmap: torch.Tensor) -> torch.Tensor:
        dist = self._patch_distances(self._patches(self.add_on(fmap)))
        nearest = dist.amin(dim=1)                                     # (N, K)
        sq = nearest * nearest
        return torch.log((sq + 1.0) / (sq + self.spec.eps))

    def forward(self, fmap: torch.Tensor) -> torch.Tensor:
        return self.last_layer(self.similarities(fmap))
