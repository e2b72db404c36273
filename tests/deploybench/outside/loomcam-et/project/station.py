"""The inspection station's loop: the line camera delivers 8-bit frames, the station cuts the
patch under the defect trigger and asks the deployed FabricNet what it is."""
from dataclasses import dataclass, field

import numpy as np

from loomcam.prep import frames_to_batch
from loomcam.weave import CLASSES


@dataclass
class PatchCutter:
    size: int = 40

    def cut(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        top, left = (h - self.size) // 2, (w - self.size) // 2
        return frame[top:top + self.size, left:left + self.size]


@dataclass
class LoomStation:
    cutter: PatchCutter = field(default_factory=PatchCutter)

    def tensor_for(self, frame: np.ndarray) -> np.ndarray:
        patch = self.cutter.cut(frame)
        return frames_to_batch(patch[None])

    def verdict(self, logits: np.ndarray) -> str:
        return CLASSES[int(np.argmax(logits))]


def run_inputs():
    import hooks
    frames, _ = hooks.roll(hooks.EVAL_ROLL)
    station = LoomStation()
    return [(station.tensor_for(frames[i]),) for i in range(4)]


def app_eval():
    import hooks
    frames, labels = hooks.roll(hooks.EVAL_ROLL)
    station = LoomStation()
    return [(station.tensor_for(f),) for f in frames], labels
