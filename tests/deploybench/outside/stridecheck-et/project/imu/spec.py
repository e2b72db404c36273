"""Signal contract between the wristband firmware and the activity network."""
from dataclasses import dataclass

ACTIVITIES = ("still", "walk", "run", "stairs", "fall")


@dataclass(frozen=True)
class WindowSpec:
    rate_hz: int = 50
    samples: int = 128           # 2.56 s at 50 Hz
    gyro_full_scale_dps: float = 250.0   # gyro channels are fed as dps / full scale
    channels: int = 6            # ax ay az [g], gx gy gz [dps / full scale]


SPEC = WindowSpec()
