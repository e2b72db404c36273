"""Calibration data for the INT8 build of StrideNet.

The archive's "calibration" sessions (recordings/index.json) were recorded in the field for this
purpose. `CalibrationSet` frames them into network windows and yields them in batches of eight,
session by session. aipc.toml names `field_calibration` as calibration_data.
"""
from dataclasses import dataclass

import torch

from bandlab import recordings
from bandlab.windows import frame


@dataclass
class CalibrationSet:
    role: str = "calibration"
    batch: int = 8

    def sessions(self):
        return recordings.index(self.role)

    def _stream(self, entry):
        """The session's (T, 3) accelerometer stream."""
        return recordings.load(entry).accel

    def windows(self, entry):
        return torch.from_numpy(frame(self._stream(entry)))

    def batches(self):
        for entry in self.sessions():
            w = self.windows(entry)
            for i in range(0, len(w), self.batch):
                yield (w[i:i + self.batch].clone(),)


def field_calibration():
    return list(CalibrationSet().batches())
