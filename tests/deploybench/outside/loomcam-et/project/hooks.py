"""aipc.toml hooks: the model, and the evaluation / calibration rolls prepared like training."""
from functools import lru_cache

import torch

from loomcam.net import build_fabricnet
from loomcam.prep import frames_to_batch
from loomcam.weave import RollSpec, make_roll

TRAIN_ROLL = RollSpec(seed=11, count=1536)
EVAL_ROLL = RollSpec(seed=23, count=400)
CALIB_ROLL = RollSpec(seed=37, count=48)


@lru_cache(maxsize=None)
def roll(spec: RollSpec):
    return make_roll(spec)


def fabric_model():
    return build_fabricnet()


def one_patch():
    frames, _ = roll(EVAL_ROLL)
    return (torch.from_numpy(frames_to_batch(frames[:1])),)


def eval_roll():
    frames, labels = roll(EVAL_ROLL)
    return (torch.from_numpy(frames_to_batch(frames)),), torch.from_numpy(labels)


def calibration_patches():
    frames, _ = roll(CALIB_ROLL)
    x = torch.from_numpy(frames_to_batch(frames))
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
