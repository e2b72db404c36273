"""The entries aipc.toml names: example snapshot, evaluation set, INT8 calibration set."""
import numpy as np
import torch

from .records import load_bench, load_fleet


def example_snapshot():
    x, _ = load_fleet("fleet_eval.csv")
    return (torch.from_numpy(x[:1]).clone(),)


def eval_snapshots():
    x, y = load_fleet("fleet_eval.csv")
    return (torch.from_numpy(x),), torch.from_numpy(y)


def calibration_snapshots():
    """INT8 calibration: 96 fleet snapshots plus the 32 commissioning-bench snapshots, so the
    ranges also cover run-in conditions the fleet sample rarely shows."""
    fleet, _ = load_fleet("fleet_calib.csv")
    bench = load_bench("commissioning_bench.csv")
    rows = np.concatenate([fleet, bench]).astype(np.float32)
    return [(torch.from_numpy(rows[i:i + 1]).clone(),) for i in range(len(rows))]
