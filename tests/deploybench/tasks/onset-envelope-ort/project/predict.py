"""Reference run of the onset-envelope project: eager PyTorch on the 400 test clips.
Prints the accuracy, then one JSON line {"accuracy": ..., "clips": ...}."""
import json

import torch

import clips
from envelope_model import pretrained


def main():
    model = pretrained()
    (x,), y = clips.test_clips()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    print(f"eager accuracy on {len(y)} clips: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "clips": len(y)}))


if __name__ == "__main__":
    main()
