"""Reference run of the motion-levels project: eager PyTorch on the 400 evaluation windows.
Prints the accuracy, then one JSON line {"accuracy": ..., "windows": ...}."""
import json

import torch

import signals
from nets.motion import motion_net


def main():
    net = motion_net()
    (x,), y = signals.labelled_windows()
    with torch.no_grad():
        acc = (net(x).argmax(1) == y).float().mean().item()
    print(f"eager accuracy on {len(y)} windows: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "windows": len(y)}))


if __name__ == "__main__":
    main()
