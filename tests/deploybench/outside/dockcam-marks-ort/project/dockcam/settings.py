"""Configuration objects of the dock-camera mark recogniser."""
from dataclasses import dataclass, field

MARKS = ("fragile", "keep_dry", "this_way_up", "do_not_stack")


@dataclass(frozen=True)
class ExposurePolicy:
    """How the recogniser evens out the dock cameras' exposure before the backbone.

    The dock cameras run on fixed exposure: night-shift frames come out dark, frames of labels
    under the roll-up door lights come out washed out. Levels are on the [0, 1] pixel scale.
    """
    dark_mean: float = 0.35        # mean level below which a frame is underexposed
    washout_mean: float = 0.86     # mean level above which a frame is washed out
    min_span: float = 0.02         # never divide by a smaller dynamic range than this
    faint_span: float = 0.18       # an underexposed frame with less range than this is mostly noise
    target_floor: float = 0.05     # where the stretched ink level lands
    target_span: float = 0.85      # ink-to-paper range after stretching
    washout_gamma: float = 2.2     # expands the compressed highlights of a washed-out frame


@dataclass(frozen=True)
class BackboneSpec:
    """A very small ConvNeXt from timm (random init, trained on the dock captures)."""
    arch: str = "convnext_atto"
    depths: tuple = (1, 1, 1, 1)
    dims: tuple = (16, 24, 32, 48)
    in_chans: int = 1
    num_classes: int = len(MARKS)


@dataclass(frozen=True)
class RecognizerConfig:
    exposure: ExposurePolicy = field(default_factory=ExposurePolicy)
    backbone: BackboneSpec = field(default_factory=BackboneSpec)
    frame_size: int = 32
