"""The sorter's inference loop as it runs on the line PC: the frame grabber delivers raw counts
for the flakes segmented in one frame; they are converted with the start-up references and
classified as one batch. `grabbed_frames` is the run-time feed (aipc.toml run_inputs): the
frames of the acceptance capture as the grabber would deliver them.
"""
import numpy as np

from .feeds import load_capture
from .flakenet import FRAME_FLAKES
from .optics import prepare
from .synth import POLYMERS


def frames(raw: np.ndarray, size: int = FRAME_FLAKES):
    for start in range(0, len(raw) - size + 1, size):
        yield raw[start:start + size]


def grabbed_frames(limit: int = 6):
    raw, _, refs = load_capture("eval_capture.npz")
    return [(prepare(frame, refs),) for frame in list(frames(raw))[:limit]]


def eject_decisions(logits: np.ndarray):
    return [POLYMERS[i] for i in logits.argmax(axis=1)]
