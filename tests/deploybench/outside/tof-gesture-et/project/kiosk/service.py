"""Gesture service: what the kiosk runs. Frames from the driver go through a ZoneWindow; a full
window becomes one model input; the ExecuTorch program classifies it.

aipc.toml names run_inputs() and app_eval() below: the inputs this service builds, exactly as it
feeds the deployed program.
"""
import argparse
import json

import numpy as np

from zonegest.sim import GESTURES

from .tof_driver import CaptureReplay
from .window import ZoneWindow


class PteRunner:
    def __init__(self, path="build/model.pte"):
        from executorch.runtime import Runtime
        self._method = Runtime.get().load_program(path).load_method("forward")

    def __call__(self, x):
        return self._method.execute([x])[0]


class GestureService:
    def __init__(self, runner=None):
        self.window = ZoneWindow()
        self.runner = runner

    def clip_input(self, frames):
        """Feed one gesture's frames; the model input once the window is full."""
        self.window.reset()
        for frame in frames:
            self.window.push(frame)
        if not self.window.full():
            raise ValueError("capture shorter than the model's window")
        return self.window.to_model_input()

    def classify(self, frames):
        logits = self.runner(self.clip_input(frames))
        return int(logits.argmax(-1).reshape(-1)[0])


def _inputs(split, n=None):
    source, service = CaptureReplay(split), GestureService()
    idx = range(len(source)) if n is None else range(min(n, len(source)))
    return [(service.clip_input(source.frames(i)),) for i in idx], source.labels[list(idx)]


def run_inputs():
    """A few recorded gestures, built the way the service feeds the program."""
    inputs, _ = _inputs("eval", n=8)
    return inputs


def app_eval():
    """Every evaluation capture through the service's input path (eval_data's order), labels."""
    import torch
    inputs, labels = _inputs("eval")
    return inputs, torch.from_numpy(labels)


def main():
    ap = argparse.ArgumentParser(description="Replay captures through the deployed gesture program.")
    ap.add_argument("--pte", default="build/model.pte")
    ap.add_argument("--split", default="eval")
    args = ap.parse_args()
    source = CaptureReplay(args.split)
    service = GestureService(PteRunner(args.pte))
    pred = np.array([service.classify(source.frames(i)) for i in range(len(source))])
    acc = float((pred == source.labels).mean())
    print(f"{len(source)} captures, accuracy {acc:.4f}; per gesture: "
          + ", ".join(f"{g} {float((pred[source.labels == k] == k).mean()):.2f}" for k, g in enumerate(GESTURES)))
    print(json.dumps({"accuracy": acc, "captures": len(source)}))


if __name__ == "__main__":
    main()
