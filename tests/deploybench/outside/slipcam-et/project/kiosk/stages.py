"""Preprocessing stages of the kiosk, registered by name so a deployment can list them in its
config (kiosk.pipeline.CropPipeline.steps). Each stage takes what the previous one returned and
the FrameSpec."""
import numpy as np
import torch

STAGES = {}


def stage(name):
    def register(fn):
        STAGES[name] = fn
        return fn
    return register


@stage("check_crop")
def check_crop(frame, spec):
    """The camera SDK hands over uint8 crops, height x width x 3."""
    frame = np.asarray(frame)
    expected = (spec.height, spec.width, 3)
    if frame.dtype != np.uint8 or frame.shape != expected:
        raise ValueError(f"crop {frame.dtype} {frame.shape}, expected uint8 {expected}")
    return frame


@stage("to_unit")
def to_unit(frame, spec):
    """uint8 0..255 -> float32 0..1 (still height x width x 3)."""
    return torch.from_numpy(frame).to(torch.float32) / 255.0


@stage("standardise")
def standardise(x, spec):
    """Per-channel standardisation with the training statistics (channels last here)."""
    mean = torch.tensor(spec.channel_mean, dtype=torch.float32)
    std = torch.tensor(spec.channel_std, dtype=torch.float32)
    return (x - mean) / std


@stage("planar")
def planar(x, spec):
    """Height x width x 3 -> 3 x height x width, the network's channel order."""
    return x.permute(2, 0, 1)


@stage("batch")
def batch(x, spec):
    return x.unsqueeze(0)
