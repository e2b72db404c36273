"""Capture logs and the cluster normalisation shared by training and the pole service.

A capture log (.npz) stores the clusters of a recording session back to back:
`xyz_mm` (int16, (total_points, 3), sensor frame), `offsets` (int64, start of each cluster,
plus the end), `label` (int64, one per cluster; -1 when unlabelled).

The classifier sees a cluster as an (n, 3) float32 array, centred on its centroid and scaled to
the unit sphere (unit_cloud). For batching during training and evaluation, clusters are
resampled to a common point count (FIXED_POINTS); max pooling over points makes the network
indifferent to repeated points, so resampling with replacement changes nothing it computes.

Entries named by aipc.toml:
- example_cluster(): one evaluation cluster at FIXED_POINTS points, batch 1;
- eval_clusters(): ((clouds (N, FIXED_POINTS, 3),), labels) of the evaluation log;
- calibration_clusters(): 48 clusters of the calibration log, one input tuple each.
"""
import os
from functools import lru_cache

import numpy as np
import torch

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
EVAL_LOG = os.path.join(DATA_DIR, "eval_session.npz")
CALIB_LOG = os.path.join(DATA_DIR, "calib_session.npz")
FIXED_POINTS = 128
RESAMPLE_SEED = 7


def write_log(path, clouds, labels):
    offsets = np.cumsum([0] + [len(c) for c in clouds]).astype(np.int64)
    np.savez_compressed(path, xyz_mm=np.concatenate(clouds).astype(np.int16), offsets=offsets,
                        label=np.asarray(labels, dtype=np.int64))


def read_log(path):
    with np.load(path) as z:
        xyz, off, lab = z["xyz_mm"], z["offsets"], z["label"]
    return [xyz[off[i]:off[i + 1]] for i in range(len(off) - 1)], lab


def unit_cloud(xyz_mm):
    """int16 mm (n, 3) -> float32 (n, 3), centred, max radius 1."""
    p = xyz_mm.astype(np.float32) / 1000.0
    p = p - p.mean(axis=0, keepdims=True)
    p = p / max(float(np.linalg.norm(p, axis=1).max()), 1e-6)
    return np.ascontiguousarray(p, dtype=np.float32)


def resample(cloud, n, rng):
    idx = rng.choice(len(cloud), n, replace=len(cloud) < n)
    return np.ascontiguousarray(cloud[idx])


def stack_fixed(clouds_mm, n=FIXED_POINTS, seed=RESAMPLE_SEED):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(np.stack([resample(unit_cloud(c), n, rng) for c in clouds_mm]))


@lru_cache(maxsize=1)
def _eval():
    clouds, labels = read_log(EVAL_LOG)
    return stack_fixed(clouds), torch.from_numpy(labels)


def eval_clusters():
    x, y = _eval()
    return (x,), y


def example_cluster():
    x, _ = _eval()
    return (x[:1].clone(),)


def calibration_clusters():
    clouds, _ = read_log(CALIB_LOG)
    x = stack_fixed(clouds, seed=RESAMPLE_SEED + 1)
    return [(x[i:i + 1].clone(),) for i in range(len(x))]
