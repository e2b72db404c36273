"""Activity service on the watch: fills a window from the sensors and asks the model."""
import numpy as np
import torch

from wearsense.config import ACTIVITIES, SensorLayout
from wearsense.windows import load_recording
from tracker.streams import WindowBuffer, replay


class ActivityService:
    def __init__(self, layout=SensorLayout()):
        self.layout = layout

    def window_input(self, buffer: WindowBuffer):
        return torch.from_numpy(buffer.as_array()[None])

    def windows_from(self, recording, limit=None):
        n = len(recording["imu"]) if limit is None else limit
        out = []
        for i in range(n):
            buf = WindowBuffer(self.layout.window)
            for frame in replay(recording, i):
                buf.push(frame)
            out.append((self.window_input(buf),))
        return out

    def classify(self, run, recording):
        return [ACTIVITIES[int(np.argmax(np.asarray(run(x))))] for (x,) in self.windows_from(recording)]


def run_inputs():
    return ActivityService().windows_from(load_recording("commute_day2.npz"), limit=8)


def app_eval():
    rec = load_recording("annotated_walks.npz")
    return ActivityService().windows_from(rec), torch.from_numpy(rec["labels"])
