"""Feature transforms of the rank-gauss model (functional, no parameters)."""
import math

import torch


def normal_scores(ranks):
    """Percentile ranks in (0, 1) -> standard normal scores: the inverse normal CDF,
    sqrt(2) * erfinv(2u - 1)."""
    return math.sqrt(2.0) * torch.erfinv(2.0 * ranks - 1.0)
