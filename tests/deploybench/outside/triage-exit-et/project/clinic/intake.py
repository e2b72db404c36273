"""The lab's intake service: a pathologist's measurement sheet (the 30 nucleus measurements in
the lab's raw units) comes in as a LabSheet; SheetFormatter standardises it with the training
statistics and hands the deployed cascade one case at a time (float32, (1, 30)).

`replay_requests()` (aipc.toml run_inputs) returns what the service feeds the deployed model for
a recorded morning of sheets.

    python -m clinic.intake      # the service's accuracy over the holdout with the eager model
"""
import json
from dataclasses import dataclass

import numpy as np
import torch

from triage import cases

MORNING = 8


@dataclass
class LabSheet:
    case_id: str
    values: dict          # measurement name -> value in the lab's units


class SheetFormatter:
    def __init__(self, stats_path: str = cases.STATS):
        with open(stats_path) as f:
            stats = json.load(f)
        self.order = stats["features"]
        self.mean = np.asarray(stats["mean"], dtype=np.float64)
        self.std = np.asarray(stats["std"], dtype=np.float64)

    def vector(self, sheet: LabSheet) -> np.ndarray:
        return np.array([sheet.values[name] for name in self.order], dtype=np.float64)

    def model_input(self, sheet: LabSheet) -> np.ndarray:
        z = (self.vector(sheet) - self.mean) / self.std
        return z.astype(np.float32)[None, :]


def recorded_sheets(limit=None):
    _, (x, y) = cases.raw_split()
    names = cases.feature_names()
    sheets = [LabSheet(f"case-{i:04d}", dict(zip(names, row))) for i, row in enumerate(x)]
    return (sheets, y) if limit is None else (sheets[:limit], y[:limit])


def replay_requests():
    """What the service feeds the deployed model for a recorded morning, one sheet per request."""
    formatter = SheetFormatter()
    sheets, _ = recorded_sheets(MORNING)
    return [(formatter.model_input(s),) for s in sheets]


if __name__ == "__main__":
    from triage.loading import load_cascade

    model, formatter = load_cascade(), SheetFormatter()
    sheets, labels = recorded_sheets()
    with torch.no_grad():
        hits = sum(int(model(torch.from_numpy(formatter.model_input(s))).argmax(1)) == int(t)
                   for s, t in zip(sheets, labels))
    print(f"intake accuracy with the eager cascade: {hits / len(labels):.4f} on {len(labels)} sheets")
