"""The labelled holdout the deployment contract names (aipc.toml [project]), model-ready.

The holdout is the capture data/holdout_capture.bin (400 packets, labelled by the herd
observers in data/holdout_labels.npy). The model takes (N, 6, 64): standardised channels by time.
"""
from functools import lru_cache

import numpy as np
import torch

from collar.packets import read_capture
from collar.service import DATA, HOLDOUT_CAPTURE, HOLDOUT_LABELS
from collar.units import ChannelStandardiser, counts_to_physical

CALIBRATION_CAPTURE = DATA / "calibration_capture.bin"


def model_ready(counts, standardiser):
    """(N, 64, 6) int16 counts -> (N, 6, 64) float32 standardised."""
    z = standardiser(counts_to_physical(counts))
    return np.ascontiguousarray(z.transpose(0, 2, 1))


@lru_cache(maxsize=1)
def _holdout():
    counts = np.stack([p.counts for p in read_capture(HOLDOUT_CAPTURE)])
    x = model_ready(counts, ChannelStandardiser.load())
    return torch.from_numpy(x), torch.from_numpy(np.load(HOLDOUT_LABELS).astype(np.int64))


def labelled_windows():
    x, y = _holdout()
    return (x,), y


def one_window():
    x, _ = _holdout()
    return (x[:1].clone(),)


def calibration_windows():
    """The 64 packets of the calibration capture (unlabelled herd traffic) for INT8 calibration."""
    counts = np.stack([p.counts for p in read_capture(CALIBRATION_CAPTURE)])
    x = torch.from_numpy(model_ready(counts, ChannelStandardiser.load()))
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
