"""The dock reader service.

Each request is one uint8 crop (32 x 32 x 3) from the camera SDK. `DockReader` turns it into
the network's input with `CropPipeline` and runs it on a runner: the eager PyTorch reader on the
development box, the ExecuTorch program (build/model.pte) on the kiosk.

aipc.toml names `replay_requests` (run_inputs: what the kiosk feeds the deployed program for a
recorded shift) and `labelled_replay` (app_eval_data: the same path over the holdout crops, with
their labels).

    python -m kiosk.dock              # the kiosk path with the eager reader
    python -m kiosk.dock --pte build/model.pte
"""
import argparse

import numpy as np
import torch

from kiosk.pipeline import CropPipeline
from slipcam.render import holdout_crops

SHIFT_LENGTH = 8


class EagerRunner:
    def __init__(self):
        from slipcam.backbone import load_reader
        self.net = load_reader()

    def __call__(self, x):
        with torch.no_grad():
            return self.net(x)


class PteRunner:
    def __init__(self, path="build/model.pte"):
        from executorch.runtime import Runtime
        self.method = Runtime.get().load_program(path).load_method("forward")

    def __call__(self, x):
        return self.method.execute([x])[0]


class DockReader:
    def __init__(self, runner, pipeline=None):
        self.runner = runner
        self.pipeline = pipeline or CropPipeline()

    def model_input(self, crop):
        return self.pipeline(crop)

    def read_bay(self, crop):
        return int(self.runner(self.model_input(crop)).argmax(1))


def recorded_shift(limit=None):
    """Crops as the camera SDK delivered them (the holdout split) and the bay numbers."""
    crops, labels = holdout_crops()
    return (crops, labels) if limit is None else (crops[:limit], labels[:limit])


def replay_requests():
    pipeline = CropPipeline()
    crops, _ = recorded_shift(SHIFT_LENGTH)
    return [(pipeline(c),) for c in crops]


def labelled_replay():
    pipeline = CropPipeline()
    crops, labels = recorded_shift()
    return [(pipeline(c),) for c in crops], torch.from_numpy(labels)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--pte", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    reader = DockReader(PteRunner(args.pte) if args.pte else EagerRunner())
    crops, labels = recorded_shift()
    hits = sum(reader.read_bay(c) == int(t) for c, t in zip(crops, labels))
    print(f"kiosk accuracy: {hits / len(labels):.4f} on {len(labels)} crops")
