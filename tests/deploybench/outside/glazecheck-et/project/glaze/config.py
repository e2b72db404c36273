"""Settings of the glaze inspection model (one place, shared by training, the hooks and the line app)."""
from dataclasses import dataclass, field

DEFECTS = ("sound", "hairline_crack", "pinholes", "crawling")


@dataclass(frozen=True)
class CameraSpec:
    side: int = 32                  # the line camera's ROI is binned to 32x32 px per tile
    full_scale: float = 255.0       # 8-bit mono sensor


@dataclass(frozen=True)
class ExposureSpec:
    # The conveyor's strobe is shared with the glazing booth: when the booth fires, the
    # camera gets a fraction of the light. Frames whose mean brightness falls below this
    # level go through the low-light stem, the rest through the normal stem.
    underexposed_below: float = 0.22
    low_light_gain: float = 4.0
    stem_channels: int = 12


@dataclass(frozen=True)
class NetSpec:
    camera: CameraSpec = field(default_factory=CameraSpec)
    exposure: ExposureSpec = field(default_factory=ExposureSpec)
    stage_channels: tuple = (16, 32, 48, 64)
    num_classes: int = len(DEFECTS)
