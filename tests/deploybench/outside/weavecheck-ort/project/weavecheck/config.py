from dataclasses import dataclass, field

DEFECTS = ("sound", "hole", "warp_break", "weft_break", "stain")


@dataclass(frozen=True)
class TrunkConfig:
    layers: tuple = (1, 1, 1, 1)
    channels: tuple = (16, 32, 64, 96)
    stem_width: int = 16
    in_chans: int = 1
    output_stride: int = 8  # 32x32 tile -> 4x4 feature map: defects are local, keep some resolution


@dataclass(frozen=True)
class PoolConfig:
    # "second-best" pooling: per channel, the rank-th largest response over the feature map.
    # A plain max fires on a single hot cell (a knot, a lint fleck); rank 2 needs the
    # response in at least two cells, mean pooling dilutes a thin broken thread.
    rank_from_top: int = 2


@dataclass(frozen=True)
class HeadConfig:
    embed_dim: int = 32
    prototypes_per_class: int = 2
    scale: float = 10.0


@dataclass(frozen=True)
class InspectorConfig:
    patch: int = 32
    classes: tuple = DEFECTS
    trunk: TrunkConfig = field(default_factory=TrunkConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    head: HeadConfig = field(default_factory=HeadConfig)
