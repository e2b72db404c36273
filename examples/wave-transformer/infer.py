"""The app's inference script: it classifies the sensor stream in windows of 6 to 32 frames (the
window grows until the class is certain), one window per request, frames (1, T, 8) float32.

`run_inputs()` is what the app feeds the deployed model; aipc.toml names it
(`run_inputs = "infer:run_inputs"`), so inspect checks the artifact takes these lengths and the
run stage feeds them to it on the target runtime.

`python infer.py` prints the eager accuracy per window length (200 waveforms each).
"""
import json

import torch

import data
from model import load_model

WINDOWS = (6, 11, 16, 23, 32)


def run_inputs():
    """One window of each length the app streams, as it feeds them: (frames (1, T, 8) float32,)."""
    return [(data.waves(1, frames, seed=500 + frames)[0],) for frames in WINDOWS]


def main():
    model = load_model()
    accs = {}
    for frames in WINDOWS:
        x, y = data.waves(200, frames, seed=700 + frames)
        with torch.no_grad():
            accs[frames] = (model(x).argmax(1) == y).float().mean().item()
        print(f"eager accuracy on 200 windows of {frames} frames: {accs[frames]:.4f}")
    print(json.dumps({"accuracy_by_frames": accs}))


if __name__ == "__main__":
    main()
