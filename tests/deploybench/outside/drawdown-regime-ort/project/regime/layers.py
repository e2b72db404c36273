"""Path features computed inside the network, so the desk's feed only has to ship closes."""
import torch
from torch import nn
from torch.nn import functional as F


class PathFeatures(nn.Module):
    """(B, 1, T) closes relative to the window's first close -> (B, 4, T):
    bar log-return (%), drawdown from the running peak, run-up from the running trough, and the
    log price level. Drawdown and run-up look only backwards (no look-ahead inside the window)."""

    def forward(self, rel_close: torch.Tensor) -> torch.Tensor:
        log_p = torch.log(rel_close)
        ret = F.pad(log_p[..., 1:] - log_p[..., :-1], (1, 0))
        running_peak = torch.cummax(rel_close, dim=-1).values
        running_trough = -torch.cummax(-rel_close, dim=-1).values
        drawdown = rel_close / running_peak - 1.0
        runup = rel_close / running_trough - 1.0
        return torch.cat([100.0 * ret, 10.0 * drawdown, 10.0 * runup, 10.0 * log_p], dim=1)
