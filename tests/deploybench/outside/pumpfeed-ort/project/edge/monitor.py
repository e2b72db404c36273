"""PumpMonitor: reads the sensor head's records, conditions them and runs the deployed model.

An alarm is raised when the same non-healthy condition wins `votes` windows in a row.

aipc.toml names two entries here:
- site_feed(): the inputs the monitor fed the model on site B, pump 3 (data/site_b_pump3.pwr);
- bench_replay(): the monitor's own path over the bench session (the raw records behind
  eval_data, in the same order) with the bench labels.
"""
import os
import sys
from collections import deque

import numpy as np

from edge.conditioning import SignalConditioner
from pumpwatch.bench_rig import CONDITIONS
from pumpwatch.recordfile import read_records

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE_RECORDS = os.path.join(HERE, "data", "site_b_pump3.pwr")
BENCH_RECORDS = os.path.join(HERE, "data", "bench_session.pwr")
BENCH_LABELS = os.path.join(HERE, "data", "bench_session_labels.csv")


class PumpMonitor:
    def __init__(self, model_path=os.path.join("build", "model.onnx"), conditioner=None, votes=3):
        self.model_path = model_path
        self.conditioner = conditioner or SignalConditioner()
        self.votes = votes
        self._session = None

    def windows(self, path):
        for rec in read_records(path):
            yield rec.seq, self.conditioner.to_model_input(rec)

    def session(self):
        if self._session is None:
            import onnxruntime as ort
            self._session = ort.InferenceSession(self.model_path, providers=["CPUExecutionProvider"])
        return self._session

    def watch(self, path):
        sess = self.session()
        name = sess.get_inputs()[0].name
        recent = deque(maxlen=self.votes)
        for seq, window in self.windows(path):
            cond = CONDITIONS[int(np.argmax(sess.run(None, {name: window})[0]))]
            recent.append(cond)
            alarm = len(recent) == self.votes and len(set(recent)) == 1 and cond != "healthy"
            yield seq, cond, alarm


def site_feed():
    return [(w,) for _, w in PumpMonitor().windows(SITE_RECORDS)]


def bench_replay():
    import csv
    import torch
    with open(BENCH_LABELS) as f:
        labels = torch.tensor([int(r["condition_id"]) for r in csv.DictReader(f)])
    return [(w,) for _, w in PumpMonitor().windows(BENCH_RECORDS)], labels


if __name__ == "__main__":
    for seq, cond, alarm in PumpMonitor(*sys.argv[2:3]).watch(sys.argv[1] if len(sys.argv) > 1 else SITE_RECORDS):
        print(f"record {seq:4d}: {cond}{'  ALARM' if alarm else ''}")
