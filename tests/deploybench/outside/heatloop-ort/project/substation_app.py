"""Substation edge app: the controller's telemetry (degC, m3/h, %) -> standardised window ->
detector -> condition per window, reported to the network operator.

The controller link hands over one window per record; for the commissioning check the app
replays the labelled commissioning log (logs/commissioning_log.npz: `telemetry` (N, 6, 48)
float32 in the controller's units, `conditions`)."""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from substation.channels import CHANNELS, CONDITIONS, WindowSpec
from substation.historian import LOGS
from substation.scaling import ChannelScaler


@dataclass
class ControllerReplay:
    telemetry: np.ndarray
    conditions: np.ndarray = None

    @classmethod
    def open(cls, name="commissioning_log.npz"):
        with np.load(os.path.join(LOGS, name)) as z:
            return cls(z["telemetry"], z["conditions"] if "conditions" in z else None)

    def records(self):
        for w in self.telemetry:
            yield dict(zip(CHANNELS, w))


@dataclass
class WindowBuilder:
    spec: WindowSpec = field(default_factory=WindowSpec)
    scaler: ChannelScaler = field(default_factory=ChannelScaler.load)

    def __call__(self, record):
        raw = np.stack([np.asarray(record[c], np.float32) for c in CHANNELS])
        if raw.shape != (self.spec.channels, self.spec.minutes):
            raise ValueError(f"window {raw.shape}, the detector takes ({self.spec.channels}, {self.spec.minutes})")
        return torch.from_numpy(self.scaler.transform(raw)[None])


class ConditionMonitor:
    def __init__(self, replay: ControllerReplay = None):
        self.replay = replay or ControllerReplay.open()
        self.build = WindowBuilder()

    def feed(self, limit=None):
        out = []
        for i, rec in enumerate(self.replay.records()):
            if limit is not None and i >= limit:
                break
            out.append((self.build(rec),))
        return out

    def report(self, detector):
        return [CONDITIONS[int(torch.as_tensor(detector(x)).argmax())] for (x,) in self.feed()]


def run_inputs():
    return ConditionMonitor().feed(limit=8)


def app_eval():
    mon = ConditionMonitor()
    return mon.feed(), torch.from_numpy(mon.replay.conditions)
