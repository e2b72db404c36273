"""Sensor and detector settings of the watch firmware's fall detector."""
from dataclasses import dataclass, field

ACTIVITIES = ("walking", "sitting_down", "stumble", "fall")


@dataclass(frozen=True)
class ImuSpec:
    rate_hz: float = 50.0
    acc_lsb_per_g: float = 4096.0          # +-8 g range, 16-bit
    gyro_lsb_per_dps: float = 32.8         # +-1000 dps range, 16-bit
    axes: int = 6                          # ax ay az (g), gx gy gz (rad/s)


@dataclass(frozen=True)
class DetectorConfig:
    imu: ImuSpec = field(default_factory=ImuSpec)
    window: int = 100                      # 2 s at 50 Hz
    stem_channels: int = 16
    body_channels: int = 24
    hidden: int = 32
    num_classes: int = len(ACTIVITIES)

    @property
    def dt(self):
        return 1.0 / self.imu.rate_hz
