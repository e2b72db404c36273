"""Reference scoring of the rank-gauss project: eager PyTorch on the 600 held-out rows.
Prints the accuracy, then one JSON line {"accuracy": ..., "rows": ...}."""
import json

import torch

import feature_store
from ranknet import restore


def main():
    net = restore()
    (x,), y = feature_store.scored_rows()
    with torch.no_grad():
        acc = (net(x).argmax(1) == y).float().mean().item()
    print(f"eager accuracy on {len(y)} held-out rows: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "rows": len(y)}))


if __name__ == "__main__":
    main()
