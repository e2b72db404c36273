"""Sensor layout and encoder settings shared by training, the hooks and the app."""
from dataclasses import dataclass, field

ACTIVITIES = ("still", "walk", "run", "stairs_up", "stairs_down", "elevator")


@dataclass(frozen=True)
class SensorLayout:
    rate_hz: float = 4.0
    window: int = 32                 # samples per decision (8 s)
    imu_channels: int = 6            # ax ay az [g], gx gy gz [rad/s]
    baro_channel: int = 6            # station pressure [hPa], as the sensor reports it

    @property
    def channels(self):
        return self.imu_channels + 1


@dataclass(frozen=True)
class EncoderConfig:
    layout: SensorLayout = field(default_factory=SensorLayout)
    hidden: int = 48
    layers: int = 2
    heads: int = 4
    ffn: int = 96
    baro_gain: float = 4.0           # detrended hPa -> model units (0.25 hPa ~ one unit)
    num_classes: int = len(ACTIVITIES)
