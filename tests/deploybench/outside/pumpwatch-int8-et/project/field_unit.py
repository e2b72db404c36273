"""The field unit's monitoring loop: codec PCM -> model input, one clip per decision.

Clips arrive from the housing microphone's codec as int16 PCM; the unit's recorder stores a
session as clips/<name>.npz (`pcm` int16 (N, samples), `states` when a technician labelled it).
"""
import os
from dataclasses import dataclass, field

import numpy as np
import torch

from acoustics.spec import PUMP_STATES, SignalSpec

CLIPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clips")


@dataclass
class Session:
    pcm: np.ndarray
    states: np.ndarray = None

    @classmethod
    def open(cls, name):
        with np.load(os.path.join(CLIPS, name)) as z:
            return cls(z["pcm"], z["states"] if "states" in z else None)


@dataclass
class ClipPreparer:
    signal: SignalSpec = field(default_factory=SignalSpec)

    def __call__(self, pcm_clip):
        """int16 (samples,) -> float32 (1, 1, samples) on [-1, 1]."""
        if pcm_clip.shape[-1] != self.signal.clip_samples:
            raise ValueError(f"clip of {pcm_clip.shape[-1]} samples, the model takes {self.signal.clip_samples}")
        wave = pcm_clip.astype(np.float32) / self.signal.pcm_full_scale
        return torch.from_numpy(wave).reshape(1, 1, -1)


class Monitor:
    def __init__(self, session_name="inspection_round.npz"):
        self.session = Session.open(session_name)
        self.prepare = ClipPreparer()

    def inputs(self, limit=None):
        pcm = self.session.pcm if limit is None else self.session.pcm[:limit]
        return [(self.prepare(c),) for c in pcm]

    def report(self, run):
        return [PUMP_STATES[int(torch.as_tensor(run(x)).argmax())] for (x,) in self.inputs()]


def run_inputs():
    return Monitor().inputs(limit=12)


def app_eval():
    m = Monitor()
    return m.inputs(), torch.from_numpy(m.session.states)
