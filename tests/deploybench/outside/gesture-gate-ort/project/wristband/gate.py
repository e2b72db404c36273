"""The wristband's wake gate: accelerometer samples stream in one (x, y, z) row at a time; every
HOP samples the gate classifies the last 64 and wakes the display on a double tap or a flick.

`windows_fed_to_model()` replays a recorded stream and returns what the gate hands the model
(aipc.toml run_inputs).

    python -m wristband.gate      # gesture accuracy of the gate with the eager model
"""
from collections import deque

import numpy as np
import torch

from gesture import imu
from gesture.config import AXES, FULL_SCALE_G, GESTURES, WINDOW
from gesture.net import load_pretrained

HOP = WINDOW            # non-overlapping windows in the replay
WAKE_ON = {"double_tap", "flick"}


class WakeGate:
    def __init__(self, classify=None):
        self.buffer = deque(maxlen=WINDOW)
        self.since_last = 0
        self.classify = classify

    def push(self, sample):
        """Add one (x, y, z) sample in g; returns the model input when a window is due, else None."""
        self.buffer.append(np.asarray(sample, dtype=np.float32))
        self.since_last += 1
        if len(self.buffer) < WINDOW or self.since_last < HOP:
            return None
        self.since_last = 0
        return self.window_tensor()

    def window_tensor(self):
        rows = np.stack(self.buffer)                      # (64, 3), oldest first
        return (rows.T / np.float32(FULL_SCALE_G))[None]  # (1, 3, 64) float32

    def should_wake(self, window):
        logits = self.classify(window)
        return GESTURES[int(np.argmax(logits))] in WAKE_ON


def replay(raw_windows):
    """Feed recorded windows sample by sample; yield each model input the gate produced."""
    gate = WakeGate()
    for window in raw_windows:
        for sample in window:
            ready = gate.push(sample)
            if ready is not None:
                yield np.ascontiguousarray(ready)


def windows_fed_to_model(count=8):
    raw, _ = imu.record(count, seed=202)
    return [(w,) for w in replay(raw)]


if __name__ == "__main__":
    net = load_pretrained()
    raw, labels = imu.record(500, seed=202)
    with torch.no_grad():
        preds = [int(net(torch.from_numpy(w)).argmax(1)) for w in replay(raw)]
    hits = sum(p == int(t) for p, t in zip(preds, labels))
    print(f"gate accuracy with the eager model: {hits / len(labels):.4f} on {len(labels)} windows")
