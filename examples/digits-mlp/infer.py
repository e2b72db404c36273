"""Reference inference of the digits-mlp project: eager PyTorch on the evaluation split.
Prints the accuracy, then one JSON line {"accuracy": ..., "samples": ...}."""
import json

import torch

import data
from model import load_model


def main():
    model = load_model()
    (x,), y = data.eval_set()
    with torch.no_grad():
        pred = model(x).argmax(1)
    acc = (pred == y).float().mean().item()
    print(f"eager accuracy on {len(y)} evaluation images: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "samples": len(y)}))


if __name__ == "__main__":
    main()
