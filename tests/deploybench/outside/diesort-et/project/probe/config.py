"""Settings shared by the map synthesiser, the network and the sorter app."""
from dataclasses import dataclass, field

PATTERNS = ("none", "center", "edge_ring", "scratch", "donut", "local_cluster")

# Prober bin codes as written into a lot file, one uint8 per die site.
BIN_OFF_WAFER = 0
BIN_PASS = 1
BIN_FAIL = 2


@dataclass(frozen=True)
class MapGeometry:
    size: int = 48                # die sites per side of the map raster
    wafer_radius: float = 0.96    # of the half-width


@dataclass(frozen=True)
class ConditionerConfig:
    # yield loss above which the wafer is treated as a "dense fail" wafer: the uniform background
    # fails (a bad probe card, a marginal test limit) swamp the spatial signature, so the local
    # background density is estimated and taken off before the backbone sees the map
    dense_loss: float = 0.30
    background_window: int = 9    # box window (die sites) of the local density estimate
    background_keep: float = 0.85 # share of the local density that is removed


@dataclass(frozen=True)
class NetConfig:
    geometry: MapGeometry = field(default_factory=MapGeometry)
    conditioner: ConditionerConfig = field(default_factory=ConditionerConfig)
    stem_width: int = 24
    channels: tuple = (24, 48, 96, 160)
    blocks: tuple = (1, 1, 1, 1)
    drop_rate: float = 0.1
    num_classes: int = len(PATTERNS)
