"""The sensor-pole service: classifies every object cluster the LiDAR clustering stage emits.

On the pole the clustering stage writes one cluster per detected object, with as many returns as
the object reflected (a distant bollard gives ~40 points, a bicycle next to the pole 400+). The
service normalises each cluster exactly like training (kerbscan.captures.unit_cloud) and runs it
through the deployed program as it is: no resampling, since that would drop returns of near
objects and repeat those of far ones for nothing; the network pools over however many points
there are.

aipc.toml names field_inputs() as the run-time inputs: the clusters of the recorded field session
data/field_session.npz, fed the way the service feeds them.
"""
import os
import sys

import numpy as np

from kerbscan import captures
from kerbscan.synth import CLASSES

FIELD_LOG = os.path.join(captures.DATA_DIR, "field_session.npz")
PROGRAM = os.path.join("build", "model.pte")


class ClusterFeed:
    """Turns the clustering stage's output into the program's input, one cluster at a time."""

    def __init__(self, log_path=FIELD_LOG):
        self.log_path = log_path

    def clusters(self):
        clouds, _ = captures.read_log(self.log_path)
        return clouds

    @staticmethod
    def model_input(xyz_mm):
        return captures.unit_cloud(xyz_mm)[None]   # (1, n, 3) float32

    def __iter__(self):
        for xyz in self.clusters():
            yield self.model_input(xyz)


class PoleClassifierService:
    def __init__(self, program_path=PROGRAM, feed=None):
        from executorch.runtime import Runtime
        self.method = Runtime.get().load_program(program_path).load_method("forward")
        self.feed = feed or ClusterFeed()

    def run(self):
        import torch
        for cloud in self.feed:
            logits = self.method.execute([torch.from_numpy(cloud)])[0]
            yield cloud.shape[1], CLASSES[int(logits.argmax())]


def field_inputs():
    return [(cloud,) for cloud in ClusterFeed()]


if __name__ == "__main__":
    for n, name in PoleClassifierService(*(sys.argv[1:2] or [PROGRAM])).run():
        print(f"{n:4d} points -> {name}")
