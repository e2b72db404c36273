"""Station and network settings."""
from dataclasses import dataclass, field

EVENT_CLASSES = ("ambient", "local_quake", "quarry_blast", "road_traffic")


@dataclass(frozen=True)
class StationConfig:
    sample_rate_hz: int = 100
    window_s: float = 4.0
    components: tuple = ("Z", "N", "E")
    counts_per_um_s: float = 3200.0      # digitizer bit weight: 3200 counts per um/s

    @property
    def window_samples(self):
        return int(self.sample_rate_hz * self.window_s)


@dataclass(frozen=True)
class GainConfig:
    """Automatic gain: weak motion keeps its absolute level (fixed gain), strong motion is
    normalised to its peak and soft-limited so that near-field events do not saturate the net."""
    strong_motion_um_s: float = 50.0     # peak ground velocity above which the window is 'strong'
    weak_ref_um_s: float = 12.5          # weak motion: 12.5 um/s -> 1.0
    weak_limit: float = 4.0              # = strong_motion / weak_ref: a guard, weak windows never reach it
    knee: float = 2.0                    # strong motion: tanh soft limiter
    strong_level: float = 4.0


@dataclass(frozen=True)
class NetConfig:
    channels: tuple = (16, 32, 32, 32)
    hidden: int = 32
    station: StationConfig = field(default_factory=StationConfig)
    gain: GainConfig = field(default_factory=GainConfig)
