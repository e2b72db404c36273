"""The head-end system's meter logs: CSV, one row per site and day,
`site,date,h00,...,h23` with hourly energy in kWh.

logs/calibration_meter_log.csv is an export of 64 site-days the data team set aside for
calibrating the deployed model (`write_meter_log` regenerates it from a fixed seed).
"""
import csv
import datetime as dt
import os

import numpy as np
import torch

from .profiles import HOURS, daily_profiles

LOG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "logs")
CALIBRATION_LOG = os.path.join(LOG_DIR, "calibration_meter_log.csv")
HOUR_COLUMNS = [f"h{h:02d}" for h in range(HOURS)]


def write_meter_log(path=CALIBRATION_LOG, days=64, seed=43):
    kwh, _ = daily_profiles(days, seed)
    start = dt.date(2024, 3, 4)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["site", "date", *HOUR_COLUMNS])
        for i, day in enumerate(kwh):
            w.writerow([f"S{1000 + i % 16}", (start + dt.timedelta(days=i // 16)).isoformat(), *(f"{v:.3f}" for v in day)])


def read_meter_log(path=CALIBRATION_LOG):
    """(site, date, readings) per row; readings float32 (24,) in kWh."""
    rows = []
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            readings = np.array([float(rec[c]) for c in HOUR_COLUMNS], dtype=np.float32)
            rows.append((rec["site"], rec["date"], readings))
    return rows


def calibration_days():
    """Calibration inputs for INT8: one (1, 24) tensor per logged site-day."""
    return [(torch.from_numpy(readings[None]),) for _, _, readings in read_meter_log()]
