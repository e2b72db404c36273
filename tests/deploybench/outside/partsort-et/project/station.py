"""Sorting station loop: camera frame -> patch -> model -> diverter lane."""
from dataclasses import dataclass

import numpy as np
import torch

from partsort.catalog import PARTS
from partsort.frames import open_capture


@dataclass
class Frame:
    pixels: np.ndarray     # uint8 (32, 32), the camera's region of interest
    seq: int


class Station:
    def __init__(self, capture="audit_shift.npz"):
        self.frames, self.labels = open_capture(capture)

    def stream(self, limit=None):
        n = len(self.frames) if limit is None else limit
        for i in range(n):
            yield Frame(self.frames[i], i)

    @staticmethod
    def patch(frame: Frame):
        return torch.from_numpy(frame.pixels.astype(np.float32) / 255.0)[None, None]

    def lane(self, run, frame):
        return PARTS[int(np.argmax(np.asarray(run(self.patch(frame)))))]


def run_inputs():
    st = Station("line_unlabelled.npz")
    return [(st.patch(f),) for f in st.stream(limit=8)]


def app_eval():
    st = Station()
    return [(st.patch(f),) for f in st.stream()], torch.from_numpy(st.labels)
