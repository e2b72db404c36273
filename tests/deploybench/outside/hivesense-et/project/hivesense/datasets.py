"""Model-ready tensors for aipc.toml [project]: the acceptance week's clips and the
commissioning clips, decoded like the gateway does (melframes.to_model_frames).

The acceptance metric is defined on the regular-schedule window: the first 3 s (48 frames)
of every clip, one clip per row.
"""
from functools import lru_cache

import torch

from .melframes import to_model_frames
from .uploads import read_store

WINDOW = 48


@lru_cache(maxsize=None)
def _windows(store: str):
    clips, states = [], []
    for b in read_store(store):
        for codes, s in zip(b.codes, b.states):
            clips.append(to_model_frames(codes[:WINDOW]))
            states.append(int(s))
    x = torch.from_numpy(__import__("numpy").stack(clips))[:, None]    # (N, 1, 48, 32)
    return x, torch.tensor(states)


def example_clip():
    x, _ = _windows("uploads_2024w18")
    return (x[:1].clone(),)


def acceptance_windows():
    x, y = _windows("uploads_2024w18")
    return (x,), y


def commissioning_windows():
    x, _ = _windows("uploads_commissioning")
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
