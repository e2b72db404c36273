"""Telemetry channels of a substation controller and the model's settings."""
from dataclasses import dataclass

# order of the model's input channels
CHANNELS = (
    "primary_supply_c",     # district network flow temperature, degC
    "primary_return_c",     # degC
    "secondary_supply_c",   # building loop flow temperature, degC
    "secondary_return_c",   # degC
    "primary_flow_m3h",     # m3/h
    "valve_pct",            # control valve opening, %
)
TEMPERATURE_CHANNELS = CHANNELS[:4]
CONDITIONS = ("normal", "fouled_exchanger", "valve_hunting", "return_sensor_drift")


@dataclass(frozen=True)
class WindowSpec:
    minutes: int = 48          # one sample per minute
    channels: int = len(CHANNELS)


@dataclass(frozen=True)
class DetectorSpec:
    window: WindowSpec = WindowSpec()
    width: int = 32
    num_conditions: int = len(CONDITIONS)
