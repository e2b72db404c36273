"""Write the stored telemetry (fixed seeds) and the scaler fitted on the training history:
telemetry/fleet_eval.csv, fleet_calib.csv, commissioning_bench.csv, scaler.json."""
import csv
import os

import numpy as np

from coldroom import FEATURES, STATES
from coldroom.plant import simulate
from coldroom.scaling import SCALER_JSON, TelemetryScaler

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "telemetry")
TRAIN_SEED = 1


def write_fleet(name, rows, states, seed):
    rng = np.random.default_rng(seed)
    with open(os.path.join(OUT, name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["unit_id", "minute"] + list(FEATURES) + ["state"])
        for r, s in zip(rows, states):
            w.writerow([f"CR-{rng.integers(1000, 9999)}", int(rng.integers(0, 525600))]
                       + [f"{v:.2f}" for v in r] + [STATES[s]])


def main():
    os.makedirs(OUT, exist_ok=True)
    train_rows, _ = simulate(6000, TRAIN_SEED)
    TelemetryScaler.fit(train_rows).save(SCALER_JSON)
    rows, states = simulate(500, 2)
    write_fleet("fleet_eval.csv", rows, states, 20)
    # the calibration export was pulled in January: cool machine rooms only
    rows, states = simulate(96, 3, ambient_c=(8.0, 20.0))
    write_fleet("fleet_calib.csv", rows, states, 30)
    # commissioning bench: new units run in at the factory's hot test room
    rows, _ = simulate(32, 4, weights=(0.6, 0.1, 0.1, 0.1, 0.1), ambient_c=(26.0, 40.0))
    with open(os.path.join(OUT, "commissioning_bench.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["serial", "timestamp"] + list(FEATURES))
        for k, r in enumerate(rows):
            w.writerow([f"SN24-{7310 + k // 4}", f"2024-03-{11 + k // 8:02d}T{9 + k % 8:02d}:15:00"]
                       + [f"{v:.2f}" for v in r])
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
