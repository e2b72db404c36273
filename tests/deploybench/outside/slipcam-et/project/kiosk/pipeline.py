"""CropPipeline: runs the configured stages over one crop."""
from dataclasses import dataclass, field
from typing import Tuple

from kiosk.stages import STAGES
from slipcam.config import FRAME, FrameSpec


@dataclass
class CropPipeline:
    spec: FrameSpec = field(default_factory=lambda: FRAME)
    steps: Tuple[str, ...] = ("check_crop", "to_unit", "standardise", "planar", "batch")

    def __post_init__(self):
        unknown = [s for s in self.steps if s not in STAGES]
        if unknown:
            raise KeyError(f"unknown pipeline stage(s) {unknown}; known: {sorted(STAGES)}")

    def __call__(self, crop):
        x = crop
        for name in self.steps:
            x = STAGES[name](x, self.spec)
        return x
