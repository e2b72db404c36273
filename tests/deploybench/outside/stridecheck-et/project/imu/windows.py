"""Windows from the archive -> the network's input layout (N, 6, T) float32."""
from dataclasses import dataclass, field

import numpy as np
import torch

from imu.archive import CaptureArchive
from imu.spec import SPEC, WindowSpec
from imu.units import accel_to_g


@dataclass
class WindowAssembler:
    spec: WindowSpec = field(default_factory=lambda: SPEC)

    def __call__(self, accel_g, gyro_dps):
        """(N, T, 3) g, (N, T, 3) dps -> (N, 6, T) float32 tensor."""
        gyro = gyro_dps / np.float32(self.spec.gyro_full_scale_dps)
        x = np.concatenate([accel_g, gyro], axis=-1).astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 2, 1)))


class SourceLoader:
    """Reads every capture of a Source and converts it with the unit the source declares."""

    def __init__(self, archive=None, assemble=None):
        self.archive = archive or CaptureArchive()
        self.assemble = assemble or WindowAssembler()

    def captures(self, source):
        for name in source.captures:
            yield self.archive.load(name)

    def windows(self, source):
        xs, ys = [], []
        for cap in self.captures(source):
            acc = accel_to_g(cap.accel, source.accel_unit, cap.lsb_per_g)
            xs.append(self.assemble(acc, cap.gyro))
            if cap.activity is not None:
                ys.append(torch.from_numpy(cap.activity.astype(np.int64)))
        return torch.cat(xs), (torch.cat(ys) if ys else None)
