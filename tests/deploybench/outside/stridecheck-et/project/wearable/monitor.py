"""Phone-side activity monitor: BLE window packets -> StrideNet input -> activity / fall alert."""
import numpy as np
import torch

from imu.archive import CaptureArchive
from imu.spec import ACTIVITIES
from imu.units import accel_to_g
from imu.windows import WindowAssembler
from wearable.link import replay


class ActivityMonitor:
    def __init__(self):
        self.assemble = WindowAssembler()

    def prepare(self, packet):
        acc = accel_to_g(packet.accel_counts[None], "counts", packet.lsb_per_g)
        return self.assemble(acc, packet.gyro_dps[None])          # (1, 6, T)

    def feed(self, packets):
        return [(self.prepare(p),) for p in packets]

    def decide(self, run, packet):
        label = ACTIVITIES[int(torch.as_tensor(run(self.prepare(packet))).argmax())]
        return label, label == "fall"


def _session(name="field_2025_03_labelled"):
    return CaptureArchive().load(name)


def run_inputs():
    return ActivityMonitor().feed(replay(_session(), limit=12))


def app_eval():
    cap = _session()
    return ActivityMonitor().feed(replay(cap)), torch.from_numpy(cap.activity.astype(np.int64))
