"""Metric-learning helpers shared by training and the deployed head."""
import torch
import torch.nn.functional as F


def unit_rows(x, eps=1e-12):
    """Each row scaled to unit L2 length (embeddings, prototypes)."""
    return F.normalize(x, p=2.0, dim=1, eps=eps)


class PrototypeHead(torch.nn.Module):
    """Cosine similarity to one enrolled prototype per part type, times a temperature.

    New part types are enrolled on the line by appending a unit-length prototype to `bank`,
    without retraining the backbone.
    """

    def __init__(self, dim, classes, scale=16.0):
        super().__init__()
        self.scale = scale
        self.register_buffer("bank", unit_rows(torch.randn(classes, dim)))

    def enroll(self, prototypes):
        self.bank.copy_(unit_rows(prototypes.detach()))

    def forward(self, embedding):
        return self.scale * torch.nn.functional.linear(unit_rows(embedding), self.bank)
