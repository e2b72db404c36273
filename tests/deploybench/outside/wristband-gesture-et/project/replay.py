"""aipc.toml's app-side entries: what the watch really feeds the deployed model.

run_inputs(): the windows GestureService prepares from a logged on-wrist session
(data/session_0412.imu).  app_eval(): the same preparation applied to the raw driver counts of
the evaluation windows (bench.EVAL_FILE, in eval order), with their labels.
"""
import os

import torch

import bench
from watchapp.gesture_service import GestureService

SESSION_LOG = os.path.join(bench.ROOT, "data", "session_0412.imu")


def run_inputs():
    svc = GestureService()
    stream = svc.read_log(SESSION_LOG)
    return [(svc.prepare(w),) for w in svc.windows(stream)]


def app_eval():
    svc = GestureService()
    counts, gesture = bench.raw_windows()
    return [(svc.prepare(c),) for c in counts], torch.from_numpy(gesture)
