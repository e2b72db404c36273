"""Gateway loop: reads the ceiling thermopile's frames (uint16 centi-kelvin, 24x32), decodes
them to degrees C and asks the model for the room state, one frame per call (batch 1).

Recordings: recordings/<name>.npz, `raw` uint16 (N, 24, 32), `states` when annotated."""
import os
from dataclasses import dataclass

import numpy as np
import torch

from wardsense import ROOM_STATES

RECORDINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recordings")


@dataclass
class Recording:
    raw: np.ndarray
    states: np.ndarray = None

    @classmethod
    def open(cls, name):
        with np.load(os.path.join(RECORDINGS, name)) as z:
            return cls(z["raw"], z["states"] if "states" in z else None)


@dataclass(frozen=True)
class FrameDecoder:
    centi_kelvin: float = 100.0
    zero_c_in_k: float = 273.15

    def __call__(self, raw: np.ndarray) -> torch.Tensor:
        c = raw.astype(np.float32) / self.centi_kelvin - self.zero_c_in_k
        return torch.from_numpy(np.ascontiguousarray(c, dtype=np.float32)).reshape(1, 1, *raw.shape[-2:])


DECODE = FrameDecoder()


class Gateway:
    def __init__(self, recording="ward_annotated.npz"):
        self.rec = Recording.open(recording)
        self.decode = DECODE

    def frames(self, limit=None):
        raw = self.rec.raw if limit is None else self.rec.raw[:limit]
        return [(self.decode(r),) for r in raw]

    def room_states(self, infer):
        return [ROOM_STATES[int(torch.as_tensor(infer(x)).argmax())] for (x,) in self.frames()]


def run_inputs():
    return Gateway().frames(limit=16)


def app_eval():
    g = Gateway()
    return g.frames(), torch.from_numpy(g.rec.states)
