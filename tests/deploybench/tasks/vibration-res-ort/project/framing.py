"""Layout of what the vibration model takes: a batch of 2-axis recordings as one float32
tensor (N, axes, samples), the Conv1d layout. The dataset and the monitor both go through here."""
import numpy as np
import torch


def as_batch(recordings):
    """recordings: float array (N, axes, samples) -> the model's input tensor."""
    return torch.from_numpy(np.ascontiguousarray(recordings, dtype=np.float32))
