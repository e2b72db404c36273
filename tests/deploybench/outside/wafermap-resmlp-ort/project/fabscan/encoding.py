"""Bin map -> model input: one float channel, no die 0.0, good die 0.5, failing die 1.0."""
import numpy as np
import torch

BIN_LEVEL = np.array([0.0, 0.5, 1.0], dtype=np.float32)


def encode_maps(maps):
    """(N, 32, 32) uint8 bins -> (N, 1, 32, 32) float32 tensor."""
    maps = np.asarray(maps)
    return torch.from_numpy(BIN_LEVEL[maps].reshape(len(maps), 1, *maps.shape[1:]))
