"""The mark recogniser: per-frame exposure normalisation in front of a timm ConvNeXt."""
import os

import timm
import torch
from torch import nn
from torch.nn import functional as F

from .settings import RecognizerConfig

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "weights", "recognizer.pt")


class MarkRecognizer(nn.Module):
    def __init__(self, config: RecognizerConfig = RecognizerConfig()):
        super().__init__()
        self.config = config
        spec = config.backbone
        self.backbone = timm.create_model(
            spec.arch, pretrained=False, num_classes=spec.num_classes, in_chans=spec.in_chans,
            depths=spec.depths, dims=spec.dims, drop_path_rate=0.0,
        )

    def _normalise_exposure(self, frame):
        """One frame (C, H, W) in [0, 1] -> the exposure the backbone was trained on."""
        policy = self.config.exposure
        level = frame.mean()
        floor = frame.min()
        span = frame.max() - floor
        if level < policy.dark_mean:
            # underexposed (night shift): stretch ink..paper to the nominal range
            gain = policy.target_span / span.clamp_min(policy.min_span)
            frame = (frame - floor) * gain + policy.target_floor
            if span < policy.faint_span:
                # faint capture: the stretch amplified the sensor noise as much as the print,
                # smooth it (3x3 box) and keep the result on the pixel scale
                frame = F.avg_pool2d(frame, 3, stride=1, padding=1, count_include_pad=False)
                frame = frame.clamp(0.0, 1.0)
        elif level > policy.washout_mean:
            # washed out (door lights): pull the black level down, expand the highlights
            frame = (frame - floor) / span.clamp_min(policy.min_span)
            frame = frame.pow(policy.washout_gamma) * policy.target_span + policy.target_floor
        return frame

    def forward(self, frames):
        """frames: (N, 1, H, W) float in [0, 1] -> (N, num_marks) logits."""
        fixed = torch.stack([self._normalise_exposure(f) for f in frames.unbind(0)])
        return self.backbone(fixed)


def load_recognizer(path=WEIGHTS, config: RecognizerConfig = RecognizerConfig()):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: run `python train.py` first")
    model = MarkRecognizer(config)
    model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model.eval()
