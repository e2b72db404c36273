"""The form scanner: it reads every digit box of a scanned form in one request, so a request
holds as many boxes as the form has: 1 (a page number) to 12 (a phone number), boxes (k, 64)
float32.

`run_inputs()` is what the scanner feeds the deployed model; aipc.toml names it
(`run_inputs = "scanner:run_inputs"`). `python scanner.py` prints the eager accuracy.
"""
import json

import torch

import boxes
from reader import load_reader

FORM_SIZES = (1, 3, 4, 7, 12)


def run_inputs():
    """One form of each size the scanner sends: (boxes (k, 64),)."""
    (x,), _ = boxes.eval_boxes()
    out, at = [], 0
    for k in FORM_SIZES:
        out.append((x[at:at + k].clone(),))
        at += k
    return out


def main():
    reader = load_reader()
    (x,), y = boxes.eval_boxes()
    with torch.no_grad():
        acc = (reader(x).argmax(1) == y).float().mean().item()
    print(f"eager accuracy on {len(y)} boxes: {acc:.4f}")
    print(json.dumps({"accuracy": acc, "boxes": len(y)}))


if __name__ == "__main__":
    main()
