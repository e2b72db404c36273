"""FeatureBuilder: arrival messages -> the model's feature rows.

Features are registered in model order with the `feature` decorator; the builder checks the
order against the model's feature list before it builds anything.
"""
import numpy as np

from dock_service.messages import Arrival
from reefer.featurize import FEATURES

EXCURSION_LIMIT_C = 8.0
_EXTRACTORS = []


def feature(name):
    def register(fn):
        _EXTRACTORS.append((name, fn))
        return fn
    return register


@feature("transit_h")
def _transit(a):
    return a.trace.hours()


@feature("mean_temp_c")
def _mean_temp(a):
    return a.trace.readings_c.mean()


@feature("peak_temp_c")
def _peak_temp(a):
    return a.trace.readings_c.max()


@feature("minutes_above_8c")
def _excursion(a):
    return a.trace.minutes_above(EXCURSION_LIMIT_C)


@feature("door_openings")
def _doors(a):
    return float(a.doors)


@feature("payload_t")
def _payload(a):
    return a.payload_kg / 1000.0


class FeatureBuilder:
    def __init__(self):
        names = tuple(n for n, _ in _EXTRACTORS)
        if names != FEATURES:
            raise RuntimeError(f"feature registry {names} does not match the model's {FEATURES}")
        self._extractors = [fn for _, fn in _EXTRACTORS]

    def row(self, arrival):
        return [fn(arrival) for fn in self._extractors]

    def build(self, messages):
        """Gateway messages -> float32 (N, 6) feature rows, one per pallet."""
        arrivals = [Arrival.parse(m) for m in messages]
        return np.asarray([self.row(a) for a in arrivals], dtype=np.float32)
