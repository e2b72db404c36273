"""Curb-side asset survey: reads a sweep's clusters, classifies each and writes the asset list.

A sweep file sweeps/<name>.npz holds `points` float64 (P, 3) in the sensor frame (metres),
`offsets` int64 (clusters + 1) delimiting each cluster, and, for sweeps a surveyor annotated,
`labels` int64 (clusters,).
"""
import os
from dataclasses import dataclass

import numpy as np
import torch

from lidar.settings import CLASSES, SegNetSettings

SWEEPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweeps")


@dataclass
class Sweep:
    name: str
    points: np.ndarray
    offsets: np.ndarray
    labels: np.ndarray = None

    @classmethod
    def read(cls, name):
        with np.load(os.path.join(SWEEPS, f"{name}.npz")) as z:
            return cls(name, z["points"], z["offsets"], z["labels"] if "labels" in z else None)

    def __len__(self):
        return len(self.offsets) - 1

    def cluster(self, i):
        return self.points[self.offsets[i]:self.offsets[i + 1]]


class SegmentSampler:
    """A cluster -> the network's input: a fixed number of points (a seeded draw per cluster, so a
    re-run gives the same asset list), centred on the centroid, (1, 3, N) float32."""

    def __init__(self, points=SegNetSettings().points):
        self.points = points

    def __call__(self, cluster, cluster_id):
        rng = np.random.default_rng(cluster_id)
        pick = np.sort(rng.choice(len(cluster), self.points, replace=len(cluster) < self.points))
        p = cluster[pick]
        p = (p - p.mean(axis=0)).astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(p.T)).reshape(1, 3, self.points)


class AssetSurvey:
    def __init__(self, sweep="sweep_0712_annotated"):
        self.sweep = Sweep.read(sweep)
        self.sample = SegmentSampler()

    def segment_inputs(self, limit=None):
        n = len(self.sweep) if limit is None else min(limit, len(self.sweep))
        return [(self.sample(self.sweep.cluster(i), i),) for i in range(n)]

    def assets(self, infer):
        return [CLASSES[int(np.argmax(np.asarray(infer(x)).reshape(-1)))] for (x,) in self.segment_inputs()]


def run_inputs():
    return AssetSurvey().segment_inputs(limit=10)


def app_eval():
    s = AssetSurvey()
    return s.segment_inputs(), torch.from_numpy(s.sweep.labels)
