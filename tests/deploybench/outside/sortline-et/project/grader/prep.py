"""How the grading model's training and evaluation sets are made from the camera's frames."""
import numpy as np
import torch

CROP = 32
# standardisation constants of the line (measured on the belt calibration card), R, G, B
RGB_MEAN = np.array([0.47, 0.36, 0.31], dtype=np.float32)
RGB_STD = np.array([0.17, 0.19, 0.16], dtype=np.float32)


def crops_to_batch(frames_bgr):
    """uint8 (N, H, W, 3) BGR frames -> float32 (N, 3, 32, 32) standardised RGB, centre crop."""
    n, h, w, _ = frames_bgr.shape
    top, left = (h - CROP) // 2, (w - CROP) // 2
    rgb = frames_bgr[:, top:top + CROP, left:left + CROP, ::-1].astype(np.float32) * (1.0 / 255.0)
    z = (rgb - RGB_MEAN) / RGB_STD
    return torch.from_numpy(np.ascontiguousarray(z.transpose(0, 3, 1, 2)))
