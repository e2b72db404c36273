"""Building blocks of GestureNet."""
import torch
from torch import nn


class ConvStage(nn.Module):
    """conv1d -> batch norm -> ReLU, followed by a saturation guard.

    The wristband firmware runs the same network in fixed point; a knock against a table or a
    clipped accelerometer burst can drive one stage's activations far past anything seen in
    training. The guard rescales such a stage output back under `limit` so that the later stages
    see a bounded signal, and zeroes a stage output that is all but silent (the sensor asleep,
    flat-lined windows) so the head does not amplify bias noise.
    """

    def __init__(self, cin, cout, kernel, stride, limit, eps=1e-6):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=False)
        self.norm = nn.BatchNorm1d(cout)
        self.act = nn.ReLU()
        self.limit = float(limit)
        self.eps = float(eps)

    def _saturation_guard(self, h):
        peak = h.abs().max()
        if peak > self.limit:
            # saturated: scale the whole stage output so its peak sits on the limit,
            # keeping the pattern across channels and time
            scale = self.limit / peak
            h = h * scale
        elif peak < self.eps:
            # dead window: nothing but numerical noise left
            h = torch.zeros_like(h)
        return h

    def forward(self, x):
        h = self.act(self.norm(self.conv(x)))
        return self._saturation_guard(h)
