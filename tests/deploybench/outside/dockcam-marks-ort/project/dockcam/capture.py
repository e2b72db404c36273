"""Reading dock-camera captures the way the label station does.

The cameras deliver 8-bit grey frames; the station logs them in capture files (numpy .npz:
`frames` uint8 (N, 32, 32), optionally `marks` / `exposure` from the labelling team).
"""
import os
from dataclasses import dataclass

import numpy as np
import torch

CAPTURE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "captures")


@dataclass(frozen=True)
class CameraConfig:
    width: int = 32
    height: int = 32
    bit_depth: int = 8


@dataclass
class CaptureLog:
    frames: np.ndarray          # uint8 (N, H, W)
    marks: np.ndarray = None    # int64 (N,), when labelled
    exposure: np.ndarray = None

    @classmethod
    def open(cls, name, camera: CameraConfig = CameraConfig()):
        with np.load(os.path.join(CAPTURE_DIR, name)) as z:
            frames = z["frames"]
            if frames.shape[1:] != (camera.height, camera.width):
                raise ValueError(f"{name}: frames {frames.shape[1:]} but the camera is {camera.height}x{camera.width}")
            return cls(frames, z["marks"] if "marks" in z else None, z["exposure"] if "exposure" in z else None)

    def __len__(self):
        return len(self.frames)


class FrameDecoder:
    """uint8 sensor frame -> the recogniser's input (1, 1, H, W) float32 on [0, 1]."""

    def __init__(self, camera: CameraConfig = CameraConfig()):
        self.full_scale = float(2 ** camera.bit_depth - 1)

    def __call__(self, raw):
        img = np.asarray(raw, dtype=np.float32) / self.full_scale
        return torch.from_numpy(np.ascontiguousarray(img)).reshape(1, 1, *img.shape)
