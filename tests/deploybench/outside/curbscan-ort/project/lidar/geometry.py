"""Per-point covariance shape features (Weinmann et al. 2015) of a segment's k-neighbourhoods.

For every point the covariance of its k nearest neighbours is decomposed; its eigenvalues
l1 >= l2 >= l3 give linearity, planarity, scattering, omnivariance, anisotropy, eigenentropy,
change of curvature, plus the neighbourhood's log size. These are the classic hand-made features
of urban point-cloud classification; the network reads them beside the coordinates.
"""
import torch
import torch.nn as nn

from .settings import DescriptorSettings


def knn_indices(xyz, k):
    """xyz (B, N, 3) -> (B, N, k) indices of each point's k nearest points (itself first)."""
    sq = (xyz * xyz).sum(-1)
    d2 = sq.unsqueeze(2) + sq.unsqueeze(1) - 2.0 * torch.bmm(xyz, xyz.transpose(1, 2))
    return torch.topk(d2, k, dim=-1, largest=False).indices


def gather_neighbourhoods(xyz, idx):
    """xyz (B, N, 3), idx (B, N, k) -> (B, N, k, 3)."""
    b, n, k = idx.shape
    src = xyz.unsqueeze(1).expand(b, n, n, 3)
    return torch.gather(src, 2, idx.unsqueeze(-1).expand(b, n, k, 3))


def neighbourhood_covariance(nbrs):
    centred = nbrs - nbrs.mean(dim=2, keepdim=True)
    return centred.transpose(2, 3) @ centred / nbrs.shape[2]


class LocalShapeDescriptor(nn.Module):
    out_features = 8

    def __init__(self, cfg: DescriptorSettings):
        super().__init__()
        self.cfg = cfg

    def eigenvalues(self, cov):
        """(B, N, 3, 3) symmetric -> (B, N, 3) descending."""
        ev = torch.linalg.eigvalsh(cov)
        return ev.flip(-1).clamp_min(self.cfg.eps)

    def forward(self, xyz):
        """xyz (B, N, 3) -> (B, 8, N)."""
        idx = knn_indices(xyz, self.cfg.neighbours)
        cov = neighbourhood_covariance(gather_neighbourhoods(xyz, idx))
        lam = self.eigenvalues(cov)
        l1, l2, l3 = lam.unbind(-1)
        total = l1 + l2 + l3
        e = lam / total.unsqueeze(-1)
        feats = torch.stack([
            (l1 - l2) / l1,                                   # linearity
            (l2 - l3) / l1,                                   # planarity
            l3 / l1,                                          # scattering
            torch.pow(e.prod(-1), 1.0 / 3.0),                 # omnivariance
            (l1 - l3) / l1,                                   # anisotropy
            -(e * torch.log(e)).sum(-1),                      # eigenentropy
            l3 / total,                                       # change of curvature
            torch.log(total),                                 # neighbourhood size
        ], dim=1)
        return feats
