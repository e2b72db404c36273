"""The recording archive: recordings/index.json lists the session files with their role and the
unit the device wrote (wrist bands write g, the older bench rig milli-g, the phone app m/s²)."""
import json
import os
from dataclasses import dataclass

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "recordings")


@dataclass
class Recording:
    name: str
    device: str
    unit: str
    accel: np.ndarray      # (T, 3), in `unit`
    activity: np.ndarray   # (T // 64,)


def index(role=None):
    with open(os.path.join(ROOT, "index.json")) as f:
        entries = json.load(f)["sessions"]
    return [e for e in entries if role is None or e["role"] == role]


def load(entry):
    with np.load(os.path.join(ROOT, entry["file"])) as z:
        return Recording(entry["file"], entry["device"], entry["unit"], z["accel"], z["activity"])
