"""Scan settings of the weld inspection station (one probe, one gain setting for the whole
weld: no time-corrected gain)."""
from dataclasses import dataclass

FLAW_CLASSES = ("no_flaw", "crack", "porosity", "lack_of_fusion")


@dataclass(frozen=True)
class ScanGeometry:
    depth_samples: int = 48        # envelope samples along the beam (time / depth)
    positions: int = 32            # probe positions along the weld, 1 mm apart
    adc_bits: int = 12             # envelope digitiser
    wall_row: float = 40.0         # nominal back-wall echo depth (samples)

    @property
    def full_scale(self) -> int:
        return (1 << self.adc_bits) - 1


@dataclass(frozen=True)
class FlawNetConfig:
    arch: str = "convnext_atto"
    dims: tuple = (16, 32, 64, 128)
    depths: tuple = (1, 1, 2, 1)
    drop_path_rate: float = 0.0
    classes: tuple = FLAW_CLASSES
