"""The label station's inference loop: one frame at a time from the dock camera to a mark."""
from dataclasses import dataclass

import torch

from dockcam.capture import CameraConfig, CaptureLog, FrameDecoder
from dockcam.settings import MARKS


@dataclass(frozen=True)
class StationConfig:
    camera: CameraConfig = CameraConfig()
    replay_log: str = "holdout.npz"     # the station's recorded shift used for field checks
    replay_frames: int = 24


class LabelStation:
    def __init__(self, config: StationConfig = StationConfig()):
        self.config = config
        self.decode = FrameDecoder(config.camera)

    def model_inputs(self, log: CaptureLog, limit=None):
        n = len(log) if limit is None else min(limit, len(log))
        return [(self.decode(log.frames[i]),) for i in range(n)]

    def classify(self, session, log: CaptureLog):
        """session: callable (frame tensor) -> logits; returns the mark names."""
        out = []
        for (frame,) in self.model_inputs(log):
            out.append(MARKS[int(torch.as_tensor(session(frame)).argmax())])
        return out


def run_inputs():
    """The frames the station feeds the deployed model (a replayed shift: all exposures)."""
    station = LabelStation()
    return station.model_inputs(CaptureLog.open(station.config.replay_log, station.config.camera),
                                station.config.replay_frames)


def app_holdout():
    """The station's own feed of the held-out captures, with their labels."""
    station = LabelStation()
    log = CaptureLog.open("holdout.npz", station.config.camera)
    return station.model_inputs(log), torch.from_numpy(log.marks)
