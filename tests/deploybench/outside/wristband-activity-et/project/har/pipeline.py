"""Inputs for deployment (aipc.toml [project] names these functions).

- sample_window(): one holdout window, batch 1, as the band feeds the model;
- holdout_eval():  every window of the held-out sessions (subjects not seen in training);
- calibration_windows(): field windows for INT8 (PT2E) calibration. The lab sessions are
  recorded to a protocol; the field captures are what the band sees in real use, so the
  activation ranges come from them.
"""
import torch

from har.field import load_field_capture
from har.sensors import load_archive

CALIBRATION_WINDOWS = 64
EVAL_ARCHIVE = "holdout_sessions"


def _tensor(batch):
    return torch.from_numpy(batch.accel_g).contiguous()


def sample_window():
    return (_tensor(load_archive(EVAL_ARCHIVE))[:1].clone(),)


def holdout_eval():
    hold = load_archive(EVAL_ARCHIVE)
    return (_tensor(hold),), torch.from_numpy(hold.activity)


def calibration_windows():
    """Field windows, one input tuple per window (batch 1)."""
    capture = load_field_capture()
    accel = torch.from_numpy(capture.windows[:CALIBRATION_WINDOWS]).contiguous()
    return [(accel[i:i + 1].clone(),) for i in range(len(accel))]
