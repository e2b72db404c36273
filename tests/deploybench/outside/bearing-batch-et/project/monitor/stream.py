"""Condition monitor: the sensor board hands over one 2 x 64 window of int16 counts every 5 ms;
the monitor converts each one and runs the classifier once per group of four windows (20 ms),
so the model is called with a batch of 4.

aipc.toml names two functions here: `batches_for_model()` (run_inputs: what the monitor feeds the
deployed model during a short recording) and `labelled_batches()` (app_eval_data: the same path
over the held-out recording, with the conditions).

    python -m monitor.stream      # the monitor's pipeline with the eager model
"""
import numpy as np
import torch

from bearingnet import signals

WINDOWS_PER_CALL = 4


class VibrationMonitor:
    def __init__(self, group=WINDOWS_PER_CALL):
        self.group = group
        self._pending = []

    def push(self, counts):
        """Queue one window (int16 (2, 64)); returns the model's input once a group is full, else None."""
        self._pending.append(signals.to_model_input(counts))
        if len(self._pending) < self.group:
            return None
        batch = np.stack(self._pending).astype(np.float32)
        self._pending.clear()
        return batch

    def feed(self, recording):
        """Every full group of a recording of windows, as the model receives it: (4, 2, 64) float32."""
        groups = []
        for counts in recording:
            batch = self.push(counts)
            if batch is not None:
                groups.append(batch)
        return groups

    @staticmethod
    def verdicts(logits):
        return [signals.CONDITIONS[i] for i in np.asarray(logits).argmax(axis=1)]


def batches_for_model():
    """What the monitor feeds the deployed model over a short recording: one (4, 2, 64) batch per call."""
    windows, _ = signals.sensor_windows(24, seed=8)
    return [(b,) for b in VibrationMonitor().feed(windows)]


def labelled_batches():
    """The monitor's own path over the held-out recording (eval_data's raw windows, same order),
    and the condition of every window."""
    windows, labels = signals.held_out_windows()
    return [(b,) for b in VibrationMonitor().feed(windows)], labels


def main():
    from bearingnet.net import load_bearing_cnn

    model, mon = load_bearing_cnn(), VibrationMonitor()
    windows, labels = signals.held_out_windows()
    said = []
    with torch.no_grad():
        for batch in mon.feed(windows):
            said += mon.verdicts(model(torch.from_numpy(batch)).numpy())
    hits = sum(s == signals.CONDITIONS[t] for s, t in zip(said, labels))
    print(f"monitor pipeline, eager model: {hits / len(labels):.4f} on {len(labels)} windows")


if __name__ == "__main__":
    main()
