"""The companion app's activity monitor: reads the band's recordings, slices the IMU FIFO into
2.56 s windows and classifies each with the deployed program (build/model.pte, ExecuTorch)."""
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from gaitband.imu import HOP, WINDOW, Sensitivity, counts_to_physical
from gaitband.recording import read_recording
from gaitband.synth import ACTIVITIES

FIELD_DIR = Path(__file__).resolve().parent.parent / "data" / "field"


@dataclass
class MonitorConfig:
    program: str = "build/model.pte"
    window: int = WINDOW
    hop: int = HOP
    imu: Sensitivity = field(default_factory=Sensitivity)


class WindowSlicer:
    def __init__(self, window, hop):
        self.window, self.hop = window, hop

    def __call__(self, fifo):
        for start in range(0, len(fifo) - self.window + 1, self.hop):
            yield fifo[start:start + self.window]


class InputPacker:
    """One window of FIFO counts -> the program's input tensor."""

    def __init__(self, config: MonitorConfig):
        self.config = config

    def pack(self, window_counts):
        frames = counts_to_physical(window_counts, self.config.imu)   # (64, 6) g, rad/s
        return torch.from_numpy(np.ascontiguousarray(frames)).unsqueeze(0)


class ActivityMonitor:
    def __init__(self, config: MonitorConfig = None):
        self.config = config or MonitorConfig()
        self.slicer = WindowSlicer(self.config.window, self.config.hop)
        self.packer = InputPacker(self.config)
        self._method = None

    def inputs_for(self, recording):
        return [(self.packer.pack(w),) for w in self.slicer(recording.fifo)]

    def _program(self):
        if self._method is None:
            from executorch.runtime import Runtime
            self._method = Runtime.get().load_program(self.config.program).load_method("forward")
        return self._method

    def classify(self, recording):
        return [ACTIVITIES[int(self._program().execute(list(x))[0].argmax())] for x in self.inputs_for(recording)]


def field_recordings():
    return [read_recording(p) for p in sorted(FIELD_DIR.glob("*.gbr"))]


def replay_field_recordings():
    """aipc run_inputs: what the app feeds the program for the field recordings."""
    monitor = ActivityMonitor()
    return [x for rec in field_recordings() for x in monitor.inputs_for(rec)]


def replay_labelled_windows():
    """aipc app_eval_data: the evaluation windows (raw band counts, eval order) through the app's path."""
    from gaitband.corpus import raw_split
    counts, labels = raw_split("eval")
    packer = ActivityMonitor().packer
    return [(packer.pack(w),) for w in counts], labels


def main():
    monitor = ActivityMonitor()
    for rec in field_recordings():
        print(rec.serial, " ".join(monitor.classify(rec)))


if __name__ == "__main__":
    main()
