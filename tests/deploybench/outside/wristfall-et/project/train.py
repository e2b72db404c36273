"""Train the fall detector on synthetic IMU episodes; writes checkpoints/detector.pt and the
recordings the deployment evaluates and calibrates with. Deterministic (fixed seeds, 1 thread)."""
import os

import numpy as np
import torch
from torch import nn

from wristfall.detector import CHECKPOINT, FallDetector
from wristfall.stream import RECORDINGS
from wristfall.synth import generate

EPOCHS, BATCH = 12, 64


def _save(name, counts, labels=None):
    data = {"samples": np.ascontiguousarray(counts.transpose(0, 2, 1))}   # the watch's (N, T, 6)
    if labels is not None:
        data["labels"] = labels
    np.savez_compressed(os.path.join(RECORDINGS, name), **data)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    import pipeline_entries as entries
    tr_counts, tr_y = generate(2400, 101)
    ev_counts, ev_y = generate(400, 202)
    cal_counts, _ = generate(64, 303)
    _save("study_eval.npz", ev_counts, ev_y)
    _save("calibration.npz", cal_counts)
    x = torch.stack([entries.BUILDER.model_input(w)[0] for w in tr_counts.transpose(0, 2, 1)])
    y = torch.from_numpy(tr_y)
    (xe,), ye = entries.study_windows()
    model = FallDetector()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            acc = (model(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    torch.save(model.state_dict(), CHECKPOINT)
    print(f"wrote {CHECKPOINT}")


if __name__ == "__main__":
    main()
