"""Simulate controller logs for the five climate states (fixed seeds) and write
data/train_windows.npz (training windows, engineering units) and the annotated field log
logs/controller_eval.csv + logs/controller_eval_labels.csv the evaluation uses.

Run from the project folder: python tools/simulate_logs.py
"""
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from climate.channels import CHANNELS, SAMPLE_MINUTES, STATES, STEPS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ramp(rng, start, end):
    k = rng.uniform(0.15, 0.5)  # how early the excursion sets in
    s = np.clip((np.arange(STEPS) / (STEPS - 1) - k) / (1 - k), 0, 1)
    return start + (end - start) * s ** rng.uniform(0.6, 1.4)


def window(rng, state):
    t = np.arange(STEPS)
    day = rng.random() < 0.6
    temp = rng.uniform(20.5, 25.5) + rng.uniform(-1.5, 1.5) * t / STEPS + rng.normal(0, 0.15, STEPS)
    rh = rng.uniform(62, 78) + rng.uniform(-4, 4) * t / STEPS + rng.normal(0, 0.8, STEPS)
    if day:
        par = rng.uniform(250, 1100) * (1 + 0.25 * np.sin(2 * np.pi * t / STEPS + rng.uniform(0, 6.28)))
        co2 = rng.uniform(380, 620) + rng.normal(0, 12, STEPS)
    else:
        par = rng.uniform(0, 15) + np.zeros(STEPS)
        co2 = rng.uniform(520, 820) + rng.normal(0, 12, STEPS)
    par = np.clip(par + rng.normal(0, 8, STEPS), 0, None)
    if state == "heating_failure":
        temp = temp + _ramp(rng, 0, -rng.uniform(6, 10))
        rh = rh + _ramp(rng, 0, rng.uniform(4, 10))
    elif state == "vent_stuck_closed":
        temp = temp + _ramp(rng, 0, rng.uniform(6, 11))
        rh = rh + _ramp(rng, 0, rng.uniform(12, 20))
    elif state == "co2_valve_stuck":
        co2 = co2 + _ramp(rng, 0, rng.uniform(700, 1300))
    elif state == "mister_stuck_on":
        rh = np.minimum(rh + _ramp(rng, 0, rng.uniform(22, 35)), 100.0)
        temp = temp + _ramp(rng, 0, -rng.uniform(1.0, 2.5))
    return np.stack([temp, np.clip(rh, 0, 100), par, co2]).astype(np.float32)


def make(n_per_state, seed):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n_per_state):
        for label, name in enumerate(STATES):
            xs.append(window(rng, name))
            ys.append(label)
    order = rng.permutation(len(ys))
    return np.stack(xs)[order], np.asarray(ys, dtype=np.int64)[order]


def main():
    x, y = make(100, seed=101)
    np.savez_compressed(os.path.join(ROOT, "data", "train_windows.npz"), windows=x, states=y)
    x, y = make(50, seed=202)
    with open(os.path.join(ROOT, "logs", "controller_eval.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["window", "minute"] + list(CHANNELS))
        for i, win in enumerate(x):
            for s in range(STEPS):
                w.writerow([i, s * SAMPLE_MINUTES] + [f"{v:.2f}" for v in win[:, s]])
    with open(os.path.join(ROOT, "logs", "controller_eval_labels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["window", "state"])
        for i, label in enumerate(y):
            w.writerow([i, STATES[label]])
    print(f"train {len(y) * 2} windows, eval {len(y)} windows written")


if __name__ == "__main__":
    main()
