"""Writes the recording archive (recordings/*.npz + index.json) from fixed seeds. The files are
shipped; this only documents how they were made. Each file holds the stream in its device's unit."""
import json
import os

import numpy as np

from bandlab.recordings import ROOT
from bandlab.units import TO_G
from bandlab.synth import simulate_recording

SESSIONS = [
    # file,               device,      unit,   role,          seed, windows, activities
    ("ev01_band.npz",     "band-v2",   "g",    "eval",        2001, 140, None),
    ("ev02_band.npz",     "band-v2",   "g",    "eval",        2002, 140, None),
    ("ev03_bench.npz",    "bench-rig", "mg",   "eval",        2003, 120, None),
    # calibration: three office sessions on the band, one outdoor session with the phone app
    ("cal01_desk.npz",    "band-v2",   "g",    "calibration", 3001, 16, ("idle", "typing", "writing")),
    ("cal02_desk.npz",    "band-v2",   "g",    "calibration", 3002, 16, ("idle", "typing", "writing")),
    ("cal03_desk.npz",    "band-v2",   "g",    "calibration", 3003, 16, ("idle", "typing", "writing")),
    ("cal04_outdoor.npz", "phone-app", "m/s2", "calibration", 3004, 24, ("walk", "run")),
]


def main():
    os.makedirs(ROOT, exist_ok=True)
    entries = []
    for name, device, unit, role, seed, windows, activities in SESSIONS:
        accel_g, activity = simulate_recording(seed, windows, activities)
        accel = (accel_g / TO_G[unit]).astype(np.float32)
        np.savez_compressed(os.path.join(ROOT, name), accel=accel, activity=activity)
        entries.append({"file": name, "device": device, "unit": unit, "role": role, "rate_hz": 25})
    with open(os.path.join(ROOT, "index.json"), "w") as f:
        json.dump({"sessions": entries}, f, indent=1)


if __name__ == "__main__":
    main()
