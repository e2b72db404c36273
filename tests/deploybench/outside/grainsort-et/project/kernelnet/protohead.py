"""Prototype head: one learned prototype per grade in the embedding space; a kernel's grade
logits are its negative Euclidean distances to them. New grades (a new foreign seed on a
contract) are added by appending a prototype, without retraining the encoder."""
import torch
from torch import nn


class PrototypeHead(nn.Module):
    def __init__(self, num_grades: int, dim: int, temperature: float):
        super().__init__()
        self.prototypes = nn.Parameter(torch.randn(num_grades, dim) * 0.5)
        self.temperature = temperature

    def distances(self, emb):
        return torch.cdist(emb, self.prototypes)

    def forward(self, emb):
        return -self.temperature * self.distances(emb)
