"""Reference scoring of the tabular-screen project: eager PyTorch on the held-out records.
Prints the accuracy, then one JSON line {"accuracy": ..., "records": ...}."""
import json

import torch

import cohort
from screening import build


def main():
    net = build()
    (x,), y = cohort.holdout()
    with torch.no_grad():
        acc = (net(x).argmax(1) == y).float().mean().item()
    print(f"eager accuracy on {len(y)} held-out records: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "records": len(y)}))


if __name__ == "__main__":
    main()
