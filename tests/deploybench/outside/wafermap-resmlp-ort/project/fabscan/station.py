"""The probe-station service: after each lot is probed the prober exports a die list (CSV); the
station rebuilds each wafer's bin map and classifies its defect pattern with the deployed model,
one wafer at a time, before the lot moves on (the line gives it a fixed time per wafer)."""
import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fabscan.encoding import encode_maps
from fabscan.wafer_synth import PATTERNS, SIZE

LOT_DIR = Path(__file__).resolve().parent.parent / "data" / "lots"


@dataclass(frozen=True)
class StationConfig:
    model_path: str = "build/model_int8.onnx"
    threads: int = 1


def read_lot(path):
    """Die list -> {(lot, wafer): (32, 32) uint8 bin map}."""
    grids = defaultdict(lambda: np.zeros((SIZE, SIZE), dtype=np.uint8))
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            grids[(row["lot"], int(row["wafer"]))][int(row["die_y"]), int(row["die_x"])] = int(row["bin"])
    return dict(grids)


def wafer_inputs(path):
    return [(key, (encode_maps(grid[None]).numpy(),)) for key, grid in read_lot(path).items()]


class PatternStation:
    def __init__(self, config: StationConfig = StationConfig()):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = config.threads
        self.session = ort.InferenceSession(config.model_path, opts, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name

    def classify(self, x):
        return PATTERNS[int(self.session.run(None, {self.input_name: x})[0].argmax())]


def probed_wafers():
    """aipc run_inputs: one input tuple per probed wafer of the lots on disk."""
    return [inp for lot in sorted(LOT_DIR.glob("*.csv")) for _, inp in wafer_inputs(lot)]


def main():
    station = PatternStation()
    for lot in sorted(LOT_DIR.glob("*.csv")):
        for (lot_id, wafer), (x,) in wafer_inputs(lot):
            print(f"{lot_id} W{wafer:02d}: {station.classify(x)}")


if __name__ == "__main__":
    main()
