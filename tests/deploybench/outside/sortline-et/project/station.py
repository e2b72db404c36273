"""The grading station: frames from the line camera -> GradeNet (deployed .pte) -> sorting gate.

One frame per decision (batch 1). `run_inputs` and `app_eval` are the station's own feed, as
the deployment checks it (aipc.toml)."""
import torch

from camera.capture import FrameStore
from camera.pipeline import FramePipeline
from camera.settings import LineSettings
from grader.scenes import KINDS


class GradingStation:
    def __init__(self, shift="audit_shift.npz", line="L2"):
        self.store = FrameStore(shift)
        self.settings = LineSettings.for_line(line)
        self.pipeline = FramePipeline(self.settings)

    def prepare(self, frame):
        return (torch.from_numpy(self.pipeline(frame)),)

    def feeds(self, limit=None):
        frames = list(self.store)
        if limit is not None:
            frames = frames[:limit]
        return [self.prepare(f) for f in frames]

    def sort(self, run):
        """run: a callable on one input tuple -> logits; returns the gate decisions."""
        return [KINDS[int(torch.as_tensor(run(*x)).argmax())] for x in self.feeds()]


def run_inputs():
    return GradingStation().feeds(limit=12)


def app_eval():
    st = GradingStation()
    return st.feeds(), torch.from_numpy(st.store.kinds())
