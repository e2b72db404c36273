"""Synthetic thermal-camera frames (fixed seed, no download): 12x12 pixels, 3 channels (the
sensor's near-, mid- and far-infrared bands), 4 scene classes:

0 a warm body at a random position, 1 a hot horizontal pipe, 2 a vertical heat gradient (a wall
warming from one side), 3 a diagonal edge between two temperatures.

The camera delivers uint8 frames in (height, width, band) order. The model takes float32
(N, 3, 12, 12): per band, (frame / 255 - BAND_MEAN) / BAND_STD.
"""
import numpy as np
import torch

SIZE, BANDS, CLASSES = 12, 3, 4
BAND_MEAN = np.array([0.42, 0.38, 0.35])
BAND_STD = np.array([0.21, 0.19, 0.18])
BAND_GAIN = np.array([1.0, 0.8, 0.6])


def _scene(kind, rng):
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    if kind == 0:
        cy, cx = rng.uniform(3, 9, size=2)
        heat = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / rng.uniform(3, 6))
    elif kind == 1:
        row = rng.uniform(2, 10)
        heat = np.exp(-((yy - row) ** 2) / rng.uniform(0.8, 2.0))
    elif kind == 2:
        heat = (yy / (SIZE - 1)) ** rng.uniform(0.6, 1.6)
        if rng.random() < 0.5:
            heat = heat[::-1]
    else:
        heat = 1.0 / (1.0 + np.exp(-(xx - yy + rng.uniform(-3, 3)) * rng.uniform(0.8, 2.0)))
    return heat


def camera_frames(count, seed):
    """`count` frames as the camera delivers them: uint8 (count, 12, 12, 3), and the labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, size=count)
    frames = np.empty((count, SIZE, SIZE, BANDS), dtype=np.uint8)
    for i, kind in enumerate(labels):
        heat = _scene(int(kind), rng)
        ambient = rng.uniform(0.15, 0.35)
        bands = ambient + 0.55 * heat[..., None] * BAND_GAIN + rng.normal(0, 0.06, (SIZE, SIZE, BANDS))
        frames[i] = np.clip(np.rint(bands * 255), 0, 255).astype(np.uint8)
    return frames, labels.astype(np.int64)


def to_model_layout(frames):
    """uint8 (N, H, W, bands) -> the model's float32 (N, bands, H, W), standardised per band."""
    x = (frames.astype(np.float32) / 255.0 - BAND_MEAN.astype(np.float32)) / BAND_STD.astype(np.float32)
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))


def training_frames():
    frames, labels = camera_frames(1600, seed=11)
    return to_model_layout(frames), torch.from_numpy(labels)


def evaluation_frames():
    frames, labels = camera_frames(400, seed=12)
    return (to_model_layout(frames),), torch.from_numpy(labels)


def example_frame():
    return (evaluation_frames()[0][0][:1].clone(),)


def calibration_frames(count=64):
    frames, _ = camera_frames(count, seed=13)
    x = to_model_layout(frames)
    return [(x[i:i + 1].clone(),) for i in range(count)]
