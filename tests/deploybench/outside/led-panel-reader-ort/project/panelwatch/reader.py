"""IndicatorReader: runs the exported reader network on camera frames."""
from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

from panelwatch.camera import CameraFrame
from panelwatch.normalize import CropNormalizer
from panelwatch.settings import ReaderSettings


@dataclass(frozen=True)
class Reading:
    sequence: int
    state: str
    confidence: float

    @property
    def trusted(self) -> bool:
        return self.confidence >= ReaderSettings.min_confidence


class IndicatorReader:
    def __init__(self, settings: ReaderSettings = ReaderSettings()):
        self.settings = settings
        self.normalizer = CropNormalizer(settings.normalizer)
        self._session = None

    @property
    def session(self):
        if self._session is None:
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.settings.intra_op_threads
            self._session = ort.InferenceSession(str(self.settings.model_path), opts, providers=["CPUExecutionProvider"])
        return self._session

    def prepare(self, frame: CameraFrame) -> np.ndarray:
        return self.normalizer.to_input(frame)

    def read(self, frame: CameraFrame) -> Reading:
        name = self.session.get_inputs()[0].name
        logits = self.session.run(None, {name: self.prepare(frame)})[0][0]
        p = np.exp(logits - logits.max())
        p /= p.sum()
        k = int(p.argmax())
        return Reading(frame.sequence, self.settings.states[k], float(p[k]))
