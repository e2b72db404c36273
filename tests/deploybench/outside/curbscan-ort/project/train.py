"""Trains CurbSegNet on synthetic sweeps and writes the sweep files the app reads.

    python train.py      (under a minute on 2 CPU cores)
"""
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from lidar.segnet import WEIGHTS, CurbSegNet
from lidar.survey import make_sweep
from survey_app import SWEEPS, SegmentSampler, Sweep


def _tensors(sweep):
    s = SegmentSampler()
    return torch.cat([s(sweep.cluster(i), i) for i in range(len(sweep))]), torch.from_numpy(sweep.labels)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(SWEEPS, exist_ok=True)
    pts, off, lab = make_sweep(360, seed=712)
    np.savez_compressed(os.path.join(SWEEPS, "sweep_0712_annotated.npz"), points=pts, offsets=off, labels=lab)
    pts, off, _ = make_sweep(64, seed=719)
    np.savez_compressed(os.path.join(SWEEPS, "sweep_0719.npz"), points=pts, offsets=off)

    pts, off, lab = make_sweep(2000, seed=1)
    x, y = _tensors(Sweep("train", pts, off, lab))
    xe, ye = _tensors(Sweep.read("sweep_0712_annotated"))

    net = CurbSegNet()
    epochs, bs = 4, 64
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=epochs * ((len(y) + bs - 1) // bs))
    g = torch.Generator().manual_seed(0)
    t0 = time.time()
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(y), generator=g)
        for i in range(0, len(y), bs):
            idx = perm[i:i + bs]
            loss = F.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {ep} loss {loss.item():.3f} eval acc {acc:.4f} {time.time() - t0:.0f}s")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
