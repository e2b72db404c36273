"""The app's inference script: scans arrive as the scanner delivers them, 8x8 uint8 arrays with
values 0..16 (one scan per request); `preprocess` turns them into the model's input and the
deployed model classifies them.

`run_inputs()` is what the app feeds the deployed model, built by the app's own preprocessing;
aipc.toml names it (`run_inputs = "infer:run_inputs"`), so the run stage feeds exactly these
arrays to the artifact on the target runtime. `app_eval()` is the same path over every
evaluation scan, with its label (`app_eval_data = "infer:app_eval"`): the checks compare the
artifact's accuracy through it with the eager model's.

`python infer.py` runs the app's pipeline with the eager model on the 360 evaluation scans.
"""
import json

import numpy as np
import torch

import data
from model import load_model

REQUESTS = 8


def load_scans():
    """The evaluation scans as the scanner delivers them: (N, 8, 8) uint8, values 0..16, and labels."""
    (x,), y = data.eval_set()
    return np.rint(x.numpy().reshape(-1, 8, 8) * 16).astype(np.uint8), y.numpy()


def preprocess(scans):
    """(N, 8, 8) uint8 scans -> the model's input (N, 1, 8, 8) float32, scaled to [0, 1]."""
    x = (scans / 255.0).astype(np.float32)
    return x.reshape(-1, 1, 8, 8)


def run_inputs():
    """What the app feeds the deployed model: one preprocessed scan per request."""
    scans, _ = load_scans()
    return [(preprocess(scans[i:i + 1]),) for i in range(REQUESTS)]


def app_eval():
    """The app's own path on every evaluation scan, with its label: what the app feeds the deployed
    model for each scan, built by its own preprocessing (aipc.toml `app_eval_data`)."""
    scans, labels = load_scans()
    return [(preprocess(scans[i:i + 1]),) for i in range(len(labels))], labels


def main():
    model = load_model()
    scans, labels = load_scans()
    # The eager pipeline converts with .float(); a deployed runtime takes the array as it is.
    x = torch.from_numpy(preprocess(scans)).float()
    with torch.no_grad():
        pred = model(x).argmax(1).numpy()
    acc = float((pred == labels).mean())
    print(f"eager accuracy of the app's pipeline on {len(labels)} scans: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "samples": len(labels)}))


if __name__ == "__main__":
    main()
