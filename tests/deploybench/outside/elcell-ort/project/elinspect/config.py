"""Station and model settings of the EL cell inspector."""
from dataclasses import dataclass, field

DEFECTS = ("intact", "crack", "inactive_area", "finger_interruption")


@dataclass(frozen=True)
class CameraCfg:
    bit_depth: int = 12            # Si-CCD, 12-bit ADC
    cell_px: int = 32              # cell crop after perspective correction and binning
    busbar_rows: tuple = (8, 16, 24)

    @property
    def full_scale(self) -> float:
        return float(2 ** self.bit_depth - 1)


@dataclass(frozen=True)
class NormCfg:
    mean: float = 0.42             # of count/full_scale over the commissioning lots
    std: float = 0.17


@dataclass(frozen=True)
class ViTCfg:
    patch: int = 8
    hidden: int = 64
    layers: int = 2
    heads: int = 4
    mlp: int = 128


@dataclass(frozen=True)
class InspectorCfg:
    camera: CameraCfg = field(default_factory=CameraCfg)
    norm: NormCfg = field(default_factory=NormCfg)
    vit: ViTCfg = field(default_factory=ViTCfg)
    num_classes: int = len(DEFECTS)
