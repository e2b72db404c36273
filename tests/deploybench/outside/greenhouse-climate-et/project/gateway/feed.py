"""Gateway feed: the climate controller's CSV log -> the classifier's input windows.

The controller appends one row per 5-minute sample (window, minute, then the four probes in
engineering units). The gateway cuts the log into 32-sample windows and brings every probe onto
a common [0, 1] scale over its measuring range, as it does for all the on-device models it
hosts, before handing a (1, 4, 32) float32 window to the ExecuTorch program.

aipc.toml names:
- run_inputs(): the windows the gateway feeds on a normal cycle (the first 8 of the log)
- app_eval():   every annotated window of logs/controller_eval.csv as the gateway builds it,
                with the grower's annotations (logs/controller_eval_labels.csv)
"""
import csv
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTROLLER_LOG = os.path.join(ROOT, "logs", "controller_eval.csv")
ANNOTATIONS = os.path.join(ROOT, "logs", "controller_eval_labels.csv")
PROGRAM = os.path.join(ROOT, "build", "model.pte")

PROBES = ("air_temp_c", "rh_pct", "par_umol_m2s", "co2_ppm")
STATE_NAMES = ("normal", "heating_failure", "vent_stuck_closed", "co2_valve_stuck", "mister_stuck_on")
WINDOW_STEPS = 32

# Measuring range of each probe (datasheets of the installed sensors).
PROBE_RANGE = {
    "air_temp_c": (-20.0, 60.0),       # SHT35 air temperature
    "rh_pct": (0.0, 100.0),            # SHT35 relative humidity
    "par_umol_m2s": (0.0, 2500.0),     # quantum PAR sensor
    "co2_ppm": (0.0, 5000.0),          # NDIR CO2 probe
}


class ControllerLog:
    def __init__(self, path=CONTROLLER_LOG):
        self.path = path
        self._frames = None

    def frames(self):
        """{window id: (4, 32) float32 array in engineering units}, in log order."""
        if self._frames is None:
            acc = {}
            with open(self.path, newline="") as f:
                for row in csv.DictReader(f):
                    acc.setdefault(int(row["window"]), []).append([float(row[p]) for p in PROBES])
            self._frames = {k: np.asarray(v, np.float32).T for k, v in acc.items()}
        return self._frames


def to_model_input(frame):
    """(4, 32) engineering units -> (1, 4, 32) float32, every probe on [0, 1] over its range."""
    lo = np.array([PROBE_RANGE[p][0] for p in PROBES], np.float32)[:, None]
    hi = np.array([PROBE_RANGE[p][1] for p in PROBES], np.float32)[:, None]
    scaled = np.clip((frame - lo) / (hi - lo), 0.0, 1.0)
    return np.ascontiguousarray(scaled[None], dtype=np.float32)


def run_inputs(count=8):
    frames = ControllerLog().frames()
    return [(to_model_input(frames[k]),) for k in list(frames)[:count]]


def app_eval():
    frames = ControllerLog().frames()
    with open(ANNOTATIONS, newline="") as f:
        state = {int(r["window"]): STATE_NAMES.index(r["state"]) for r in csv.DictReader(f)}
    inputs = [(to_model_input(frames[k]),) for k in frames]
    labels = np.asarray([state[k] for k in frames], np.int64)
    return inputs, labels


def main(program=PROGRAM):
    import torch
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(program).load_method("forward")
    for k, frame in ControllerLog().frames().items():
        scores = method.execute([torch.from_numpy(to_model_input(frame))])[0]
        print(f"window {k}: {STATE_NAMES[int(scores.argmax())]}")


if __name__ == "__main__":
    main(*sys.argv[1:])
