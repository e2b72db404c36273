"""The phone side of the wristband: the band streams its z-axis accelerometer as int16 counts
(+-8 g full scale, 4096 counts per g) in BLE packets of 16 samples. `TapListener` keeps the
last 128 samples and turns them into the model's (1, 1, 128) float32 window in g.

`replay_feed()` is what the app feeds the deployed model for a recorded session (aipc.toml
run_inputs); `labelled_replay()` the same path over the holdout windows, with their labels
(app_eval_data).

    python -m app.stream      # accuracy of the app's path with the eager model
"""
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import torch

from wristband.config import DEFAULT, GESTURES
from wristband.signals import holdout

COUNTS_PER_G = 4096.0
PACKET = 16


def to_packets(window_g: np.ndarray) -> list:
    """Split one window (in g) into the int16 packets the band would send."""
    counts = np.clip(np.rint(window_g * COUNTS_PER_G), -32768, 32767).astype(np.int16)
    return [counts[i:i + PACKET] for i in range(0, len(counts), PACKET)]


@dataclass
class TapListener:
    window: int = DEFAULT.window
    _samples: deque = field(default_factory=deque)

    def push(self, packet: np.ndarray) -> None:
        self._samples.extend(int(v) for v in packet)
        while len(self._samples) > self.window:
            self._samples.popleft()

    @property
    def ready(self) -> bool:
        return len(self._samples) == self.window

    def model_input(self) -> np.ndarray:
        counts = np.fromiter(self._samples, dtype=np.float32, count=self.window)
        return (counts / COUNTS_PER_G).reshape(1, 1, self.window)

    def classify(self, net) -> str:
        with torch.no_grad():
            return GESTURES[int(net(torch.from_numpy(self.model_input())).argmax(1))]


def _session(limit=None):
    (x,), y = holdout()
    x, y = x.numpy()[:, 0, :], y.numpy()
    return (x, y) if limit is None else (x[:limit], y[:limit])


def _feed(windows) -> list:
    feeds = []
    for w in windows:
        listener = TapListener()
        for packet in to_packets(w):
            listener.push(packet)
        feeds.append((listener.model_input(),))
    return feeds


def replay_feed(count: int = 8) -> list:
    """Inputs the app feeds the deployed model for a recorded session, one per gesture window."""
    windows, _ = _session(count)
    return _feed(windows)


def labelled_replay():
    """The app's own path over the holdout windows, with their labels."""
    windows, labels = _session()
    return _feed(windows), torch.from_numpy(labels)


if __name__ == "__main__":
    from wristband.encoder import load_encoder

    net = load_encoder()
    feeds, labels = labelled_replay()
    with torch.no_grad():
        hits = sum(int(net(torch.from_numpy(f[0])).argmax(1)) == int(t) for f, t in zip(feeds, labels))
    print(f"app path accuracy with the eager model: {hits / len(labels):.4f} on {len(labels)} windows")
