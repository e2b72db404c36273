"""Reference inference of the digits-pair project: eager PyTorch on the 360 evaluation pairs.
Prints the accuracy (same / different digit), then one JSON line {"accuracy": ..., "samples": ...}."""
import json

import torch

import data
from model import load_model


def main():
    model = load_model()
    (a, b), same = data.eval_set()
    with torch.no_grad():
        pred = model(a, b).argmax(1)
    acc = (pred == same).float().mean().item()
    print(f"eager accuracy on {len(same)} evaluation pairs: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "samples": len(same)}))


if __name__ == "__main__":
    main()
