"""Scene ranging: turns a frame in degrees C into the network's relative-temperature map.

The thermopile sees rooms from 16 C to 30 C ambient, and kettles/heaters up to 90 C. The
network wants "how much warmer than the room, in units of the scene's contrast", with two
policies agreed with the care staff's test rooms:
  * a hot appliance must not squash the people: frames are clipped at `hot_limit_c` first;
  * an empty room must not have its sensor noise stretched to full contrast: the span used
    for scaling is at least `min_span_c`.
"""
from dataclasses import dataclass

import torch


@dataclass
class SceneRanger:
    hot_limit_c: float = 40.0
    min_span_c: float = 2.5

    def range_frame(self, frame: torch.Tensor) -> torch.Tensor:
        """frame (1, H, W) in C -> (1, H, W) relative map, roughly in [-1, 1]."""
        if frame.max() > self.hot_limit_c:
            frame = frame.clamp(max=self.hot_limit_c)
        ambient = frame.mean()
        rel = frame - ambient
        span = rel.abs().max()
        if span < self.min_span_c:
            span = torch.full_like(span, self.min_span_c)
        return rel / span

    def __call__(self, frames: torch.Tensor) -> torch.Tensor:
        return torch.stack([self.range_frame(f) for f in frames])
