"""Fixed settings of the cavity-pressure quality net, shared by training, the cell controller
and the deployment hooks."""
from dataclasses import dataclass, field

PART_VERDICTS = ("good", "short_shot", "flash", "sink")


@dataclass(frozen=True)
class SensorLayout:
    """Two piezo cavity-pressure sensors: one near the gate, one at the end of flow.
    Each cycle window is 2.56 s at 100 Hz, starting at the injection trigger."""
    channels: tuple = ("near_gate", "end_of_flow")
    samples: int = 256
    rate_hz: float = 100.0
    # charge amplifier: 1 bar of cavity pressure reads 5 mV on the +/-10 V DAQ input
    volts_per_bar: float = 0.005
    # the net reads pressure as a fraction of the tool's nominal peak
    nominal_bar: float = 1000.0


@dataclass(frozen=True)
class NetConfig:
    widths: tuple = (24, 32, 48)
    kernel: int = 7
    verdicts: tuple = PART_VERDICTS
    layout: SensorLayout = field(default_factory=SensorLayout)
