"""The scanning service: each request carries one 8x8 scan as the scanner writes it (uint8,
0..16 grey levels). `ScanPipeline` turns a request into the model's input and classifies it.

`replay_requests()` returns what the service feeds the deployed model for a recorded session
of requests (aipc.toml names it as run_inputs); `labelled_session()` the same over the whole
holdout, with the labels (app_eval_data).

    python -m app.serving      # accuracy of the service's pipeline with the eager model
"""
import numpy as np
import torch

from dataset_utils import holdout
from nets.glyphnet import build_classifier

LEVELS = 16
SESSION_LENGTH = 6


def recorded_session(limit=None):
    """The holdout scans as the scanner wrote them (uint8 grey levels) and their labels."""
    (x,), y = holdout()
    raw = np.rint(x.numpy().reshape(-1, 8, 8) * LEVELS).astype(np.uint8)
    return (raw, y.numpy()) if limit is None else (raw[:limit], y.numpy()[:limit])


class ScanPipeline:
    def __init__(self, levels=255):
        self.levels = levels

    def _grey_to_unit(self, scan):
        """uint8 grey levels -> intensities in [0, 1]."""
        return scan.astype(np.float32) / self.levels

    def model_input(self, scan):
        """One request's scan -> the model's (1, 1, 8, 8) input."""
        return self._grey_to_unit(scan).reshape(1, 1, 8, 8)

    def classify(self, net, scan):
        with torch.no_grad():
            return int(net(torch.from_numpy(self.model_input(scan)).float()).argmax(1))


def replay_requests():
    """The inputs the service feeds the deployed model for a recorded session, one per request."""
    pipeline = ScanPipeline()
    scans, _ = recorded_session(SESSION_LENGTH)
    return [(pipeline.model_input(scan),) for scan in scans]


def labelled_session():
    """The service's own path over the whole holdout, with the labels: what it feeds the deployed
    model for each recorded scan (aipc.toml names it as app_eval_data)."""
    pipeline = ScanPipeline()
    scans, labels = recorded_session()
    return [(pipeline.model_input(scan),) for scan in scans], labels


if __name__ == "__main__":
    net, pipeline = build_classifier(), ScanPipeline()
    scans, labels = recorded_session()
    hits = sum(pipeline.classify(net, s) == int(t) for s, t in zip(scans, labels))
    print(f"service accuracy with the eager model: {hits / len(labels):.4f} on {len(labels)} scans")
