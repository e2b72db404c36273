"""Readers for the two telemetry sources stored with the project.

- Fleet exports (telemetry/fleet_*.csv): one-minute snapshots from units in the field, with the
  state the service technician confirmed. `load_fleet` returns them model-ready.
- Commissioning bench logs (telemetry/commissioning_bench.csv): snapshots the service tool
  records while a new unit is run in on the bench (serial, timestamp, the same eight channels),
  also used by the commissioning report, which wants engineering units.
"""
import csv
import os

import numpy as np

from . import FEATURES, STATES
from .scaling import SCALER

TELEMETRY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "telemetry")


def _read(name):
    with open(os.path.join(TELEMETRY, name), newline="") as f:
        return list(csv.DictReader(f))


def read_fleet_raw(name: str):
    """(rows float32 (N, 8) in engineering units, state indices (N,))."""
    recs = _read(name)
    rows = np.array([[float(r[k]) for k in FEATURES] for r in recs], dtype=np.float32)
    states = np.array([STATES.index(r["state"]) for r in recs], dtype=np.int64)
    return rows, states


def load_fleet(name: str):
    """Fleet snapshots ready for the model (standardised), with their states."""
    rows, states = read_fleet_raw(name)
    return SCALER.transform(rows), states


def load_bench(name: str = "commissioning_bench.csv"):
    """Bench snapshots, (N, 8) float32 in engineering units (kPa, deg C, A)."""
    return np.array([[float(r[k]) for k in FEATURES] for r in _read(name)], dtype=np.float32)
