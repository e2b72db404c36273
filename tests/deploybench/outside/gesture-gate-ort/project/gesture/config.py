"""Shared settings of the gesture package: the sensor window and the network layout."""
from dataclasses import dataclass, field

AXES = 3                 # accelerometer x, y, z
WINDOW = 64              # samples per window (50 Hz: 1.28 s)
FULL_SCALE_G = 4.0       # the accelerometer's +-4 g range; windows are divided by it
GESTURES = ("rest", "shake", "circle", "double_tap", "flick")


@dataclass(frozen=True)
class StageSpec:
    out_channels: int
    kernel: int
    stride: int


@dataclass(frozen=True)
class NetConfig:
    in_channels: int = AXES
    window: int = WINDOW
    num_classes: int = len(GESTURES)
    stages: tuple = field(default_factory=lambda: (
        StageSpec(16, 7, 2),
        StageSpec(24, 5, 2),
        StageSpec(32, 3, 2),
    ))
    # activations above this are treated as saturated by the stage guard (see blocks.py)
    activation_limit: float = 12.0
    dropout: float = 0.1


DEFAULT = NetConfig()
