"""Frame -> network tensor: 8-bit HWC camera frames to normalised float CHW."""
import numpy as np

MEAN = np.array([0.52, 0.50, 0.47], np.float32)
STD = np.array([0.17, 0.17, 0.18], np.float32)


def frames_to_batch(frames: np.ndarray) -> np.ndarray:
    """uint8 (N, H, W, 3) -> float32 (N, 3, H, W), per-channel standardised."""
    x = frames.astype(np.float32) / 255.0
    x = (x - MEAN) / STD
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
