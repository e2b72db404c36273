"""The clips the model is trained and checked on, as model inputs: (N, 1, 16, 32) float32."""
import numpy as np
import torch

from .audio import record
from .features import FRONTEND


def featurise(clips: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.stack([FRONTEND(c) for c in clips]))


def training_set():
    pcm, y = record(3000, 11)
    return featurise(pcm), torch.from_numpy(y)


def field_holdout_pcm():
    """Raw clips of the holdout (another season's recordings) and their labels."""
    return record(600, 12)


def holdout():
    """Labelled holdout as model inputs (aipc.toml eval_data)."""
    pcm, y = field_holdout_pcm()
    return (featurise(pcm),), torch.from_numpy(y)


def one_clip():
    """A single clip, the shape the recorder feeds (aipc.toml example_inputs)."""
    pcm, _ = record(1, 13)
    return (featurise(pcm),)


def calibration_clips(count: int = 48):
    pcm, _ = record(count, 14)
    x = featurise(pcm)
    return [(x[i:i + 1],) for i in range(count)]
