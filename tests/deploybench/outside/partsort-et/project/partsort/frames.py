"""Camera frames <-> model patches."""
import os

import numpy as np
import torch

CAPTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "captures")


def open_capture(name):
    with np.load(os.path.join(CAPTURES, name)) as z:
        return z["frames"], (z["labels"] if "labels" in z.files else None)


def to_patches(frames):
    """uint8 (N, 32, 32) -> float32 (N, 1, 32, 32) on [0, 1]."""
    return torch.from_numpy(frames.astype(np.float32) / 255.0).unsqueeze(1)
