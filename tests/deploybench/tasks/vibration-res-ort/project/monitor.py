"""The condition monitor: it classifies every recording the sensor hub uploads. Recordings have
no fixed length: the hub cuts them at 64 to 256 samples depending on the shaft speed. One
recording per request, (1, 2, samples) float32.

`run_inputs()` is what the monitor feeds the deployed model; aipc.toml names it
(`run_inputs = "monitor:run_inputs"`). `python monitor.py` prints the eager accuracy per length.
"""
import json

import torch

import recordings
from residual import load_vibration_net

LENGTHS = (64, 96, 128, 200, 256)


def run_inputs():
    """One recording of each length the hub uploads, as the monitor feeds it: (signal (1, 2, samples),)."""
    return [(recordings.record(1, n, seed=900 + n)[0],) for n in LENGTHS]


def main():
    net = load_vibration_net()
    accs = {}
    for n in LENGTHS:
        x, y = recordings.record(200, n, seed=700 + n)
        with torch.no_grad():
            accs[n] = (net(x).argmax(1) == torch.from_numpy(y)).float().mean().item()
        print(f"eager accuracy on 200 recordings of {n} samples: {accs[n]:.4f}")
    print(json.dumps({"accuracy_by_samples": accs}))


if __name__ == "__main__":
    main()
