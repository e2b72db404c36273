"""Re-creates captures/ (the recorded sessions) from the motion simulator, fixed seeds.

field_*: wristband rev C, int16 counts at 4096 LSB/g (+-8 g range), gyro in dps.
bench_rig_*: RigLogger exports of the shaker rig's reference IMU (float acceleration in
milli-g since RigLogger 3.0, gyro in dps), unlabelled.
"""
import os

import numpy as np

from imu.archive import CAPTURE_DIR
from imu.synth import simulate_set

LSB_PER_G = 4096.0


def _counts(acc_g):
    return np.clip(np.round(acc_g * LSB_PER_G), -32768, 32767).astype(np.int16)


def main():
    os.makedirs(CAPTURE_DIR, exist_ok=True)
    acc, gyr, y = simulate_set(seed=101, n=400)
    np.savez_compressed(os.path.join(CAPTURE_DIR, "field_2025_03_labelled.npz"),
                        accel=_counts(acc), gyro=gyr, lsb_per_g=LSB_PER_G, activity=y)
    acc, gyr, _ = simulate_set(seed=202, n=48)
    np.savez_compressed(os.path.join(CAPTURE_DIR, "field_2025_02_wear.npz"),
                        accel=_counts(acc), gyro=gyr, lsb_per_g=LSB_PER_G)
    for k, name in enumerate(("bench_rig_sweep_a", "bench_rig_sweep_b")):
        acc, gyr, _ = simulate_set(seed=303 + k, n=8)
        np.savez_compressed(os.path.join(CAPTURE_DIR, f"{name}.npz"),
                            accel=(acc * 1000.0).astype(np.float32), gyro=gyr)


if __name__ == "__main__":
    main()
