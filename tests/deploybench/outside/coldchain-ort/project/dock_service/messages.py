"""Gateway messages as they arrive at the receiving desk, and their parsed form.

A message is a dict (the gateway's JSON):
    {"shipment": "EV-0007", "payload_kg": 512.3, "doors": 3,
     "logger": {"interval_s": 120, "readings_c": [3.9, 4.1, ...]}}
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LoggerTrace:
    interval_s: int
    readings_c: np.ndarray

    @classmethod
    def from_message(cls, logger):
        return cls(int(logger["interval_s"]), np.asarray(logger["readings_c"], dtype=np.float64))

    def hours(self):
        """Length of the trace in hours."""
        return len(self.readings_c) * self.interval_s / 3600.0

    def minutes_above(self, limit_c):
        """How long the load spent above `limit_c`, in minutes."""
        return np.count_nonzero(self.readings_c > limit_c) * self.interval_s


@dataclass(frozen=True)
class Arrival:
    shipment: str
    trace: LoggerTrace
    doors: int
    payload_kg: float

    @classmethod
    def parse(cls, message):
        return cls(message["shipment"], LoggerTrace.from_message(message["logger"]),
                   int(message["doors"]), float(message["payload_kg"]))


def as_gateway_message(ship):
    """A simulated shipment as its gateway reports it (used to replay recorded arrivals)."""
    return {"shipment": ship.shipment_id, "payload_kg": round(ship.payload_kg, 3),
            "doors": ship.door_openings,
            "logger": {"interval_s": ship.interval_s, "readings_c": ship.temps_c.tolist()}}
