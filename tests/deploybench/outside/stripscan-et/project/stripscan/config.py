"""Geometry and class table of the inspection line (shared by training and the station)."""
from dataclasses import dataclass

DEFECTS = ("clean", "scratch", "pitting", "edge_crack")


@dataclass(frozen=True)
class LineGeometry:
    tile_px: int = 32            # tiles cut from the line-scan image, square
    mm_per_px: float = 1.0       # camera calibration (cross-width)
    strip_width_mm: float = 1600.0
    edge_band_mm: float = 560.0  # |position| beyond this is the edge zone (edge cracks live there)

    @property
    def half_width_mm(self):
        return self.strip_width_mm / 2.0


@dataclass(frozen=True)
class GreyLevels:
    """8-bit camera counts -> model units (fixed from the commissioning white/grey targets)."""
    mean: float = 140.0
    std: float = 24.0
