"""The drive monitor: runs next to the servo controller, cuts the torque log into 32-sample
windows and asks the fault net about each one, one window per request (torque (1, 32) float32).
It raises a maintenance ticket when a fault condition repeats.

`controller_windows()` is what the monitor sends the deployed net over one logged shift
(aipc.toml names it as run_inputs).

    python drive_monitor.py     # the monitor's accuracy with the eager net
"""
import json
from collections import Counter

import numpy as np
import torch

from motorfault import traces
from motorfault.net import load_net

SHIFT_WINDOWS = 8


class DriveMonitor:
    def __init__(self, net=None, repeat_for_ticket=3):
        self.net = net
        self.repeat_for_ticket = repeat_for_ticket
        self.seen = Counter()

    @staticmethod
    def request(window):
        return np.asarray(window, dtype=np.float32).reshape(1, traces.WINDOW)

    def check(self, window):
        with torch.no_grad():
            cond = int(self.net(torch.from_numpy(self.request(window))).argmax(1))
        self.seen[cond] += 1
        return cond

    def tickets(self):
        return [traces.CONDITIONS[c] for c, n in self.seen.items() if c and n >= self.repeat_for_ticket]


def logged_shift(count=SHIFT_WINDOWS, seed=90):
    x, y = traces.drive_log(count, seed=seed)
    return x.numpy(), y.numpy()


def controller_windows():
    windows, _ = logged_shift()
    return [(DriveMonitor.request(w),) for w in windows]


def main(count=500):
    monitor = DriveMonitor(load_net())
    windows, labels = logged_shift(count, seed=91)
    hits = sum(monitor.check(w) == int(t) for w, t in zip(windows, labels))
    print(f"monitor accuracy with the eager net: {hits / count:.4f} on {count} windows")
    print(json.dumps({"accuracy": hits / count, "tickets": monitor.tickets()}))


if __name__ == "__main__":
    main()
