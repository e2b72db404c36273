"""Write the stored CAN logs (fixed seeds, int16 CAN units):
logs/eval_windows.npz (labelled evaluation windows), logs/calib_windows.npz (calibration windows),
logs/ride_0412.npz (one unlabelled ride as the gateway records it). Training data: train.py."""
import os

import numpy as np

from telemetry.codec import encode
from telemetry.simulate import make_windows

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, seed, count, labelled=True):
    x, y = make_windows(seed, count)
    raw = np.stack([encode(w) for w in x])
    arrays = {"frames": raw}
    if labelled:
        arrays["health"] = y
    path = os.path.join(HERE, "logs", name)
    np.savez_compressed(path, **arrays)
    print(f"{path}: {raw.shape} int16, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    write("eval_windows.npz", 2024, 320)
    write("calib_windows.npz", 4048, 64)
    write("ride_0412.npz", 412, 10, labelled=False)
