"""aipc.toml [project] entries."""
import torch

from lidar.segnet import load_segnet
from survey_app import SegmentSampler, Sweep

_SAMPLE = SegmentSampler()


def model():
    return load_segnet()


def _segments(sweep):
    return torch.cat([_SAMPLE(sweep.cluster(i), i) for i in range(len(sweep))], dim=0)


def annotated_sweep():
    s = Sweep.read("sweep_0712_annotated")
    return (_segments(s),), torch.from_numpy(s.labels)


def first_segment():
    s = Sweep.read("sweep_0712_annotated")
    return (_SAMPLE(s.cluster(0), 0),)


def calibration_segments():
    """Clusters of another sweep of the same route (not annotated)."""
    s = Sweep.read("sweep_0719")
    return [(_SAMPLE(s.cluster(i), i),) for i in range(len(s))]
