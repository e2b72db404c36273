"""The station's detection loop: cuts the live stream into 4 s windows (2 s hop), converts
counts to velocity and asks the deployed classifier what each window holds."""
from dataclasses import dataclass, field

import numpy as np
import torch

from seismo.config import EVENT_CLASSES, StationConfig
from station.digitizer import Digitizer, Recording


@dataclass
class WindowCutter:
    station: StationConfig = field(default_factory=StationConfig)
    hop_s: float = 2.0

    def __call__(self, stream_counts):
        n = self.station.window_samples
        hop = int(self.hop_s * self.station.sample_rate_hz)
        starts = range(0, stream_counts.shape[-1] - n + 1, hop)
        return [stream_counts[:, s:s + n] for s in starts]


class StationMonitor:
    def __init__(self):
        self.digitizer = Digitizer()
        self.cut = WindowCutter()

    def model_input(self, window_counts):
        v = self.digitizer.to_velocity(window_counts)
        return (torch.from_numpy(np.ascontiguousarray(v[None])),)

    def stream_inputs(self, stream_counts, limit=None):
        windows = self.cut(stream_counts)
        return [self.model_input(w) for w in windows[:limit]]

    def classify(self, run, window_counts):
        return EVENT_CLASSES[int(torch.as_tensor(run(*self.model_input(window_counts))).argmax())]


def run_inputs():
    """The windows the loop feeds the model from the last minute of the live stream."""
    return StationMonitor().stream_inputs(Recording.load("stream_tail.npz").counts, limit=12)


def app_eval():
    """The analyst-reviewed windows (eval_data's samples, same order) through the loop's path."""
    rec = Recording.load("reviewed_events.npz")
    mon = StationMonitor()
    return [mon.model_input(w) for w in rec.counts], torch.from_numpy(rec.labels)
