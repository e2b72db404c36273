"""The induction station: reads the depth sensor's belt log, prepares each parcel's points and
asks the deployed classifier (build/model.pte) for the chute (box / tube / pouch / envelope).

The station feeds every point the sensor returned for a parcel (no resampling on the device:
it costs time and throws away points), so the point count changes from parcel to parcel.

    python induction_station.py [scans/shift_0612.npz]
"""
import os
import sys

import numpy as np
import torch

from sorter.geometry import CLASSES, unpack
from sorter.prep import centre_and_scale

HERE = os.path.dirname(os.path.abspath(__file__))
SHIFT_LOG = os.path.join(HERE, "scans", "shift_0612.npz")


class InductionStation:
    def __init__(self, log_path=SHIFT_LOG):
        with np.load(log_path) as z:
            self.scans = unpack(z["points"], z["offsets"])
            self.labels = z["labels"] if "labels" in z.files else None

    @staticmethod
    def prepare(scan_mm):
        """One parcel's int16 points (N, 3) -> the model input (1, N, 3) float32."""
        return centre_and_scale(scan_mm)[None]

    def feeds(self, limit=None):
        scans = self.scans if limit is None else self.scans[:limit]
        return [(self.prepare(s),) for s in scans]


def run_inputs():
    """What the station feeds the deployed model during a shift (the first 8 parcels of the log)."""
    return InductionStation().feeds(limit=8)


def app_eval_data():
    """The held-out parcels as the station would feed them, in holdout() order, with labels."""
    station = InductionStation(os.path.join(HERE, "scans", "holdout.npz"))
    return station.feeds(), torch.from_numpy(station.labels)


def main(log_path=SHIFT_LOG, pte=os.path.join(HERE, "build", "model.pte")):
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(pte).load_method("forward")
    station = InductionStation(log_path)
    for i, (x,) in enumerate(station.feeds()):
        logits = method.execute([torch.from_numpy(x)])[0]
        print(f"parcel {i:3d}: {x.shape[1]:4d} points -> {CLASSES[int(logits.argmax())]}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
