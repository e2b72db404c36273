"""Record the rig sessions into data/, fit the channel statistics and train PumpNet.

Deterministic (fixed seeds, one thread), a few seconds.
"""
import csv
import os

import numpy as np
import torch
from torch import nn

from pumpwatch import bench_rig, dataset
from pumpwatch.cnn import WEIGHTS, PumpNet
from pumpwatch.recordfile import write_records

EPOCHS = 25


def record_sessions():
    os.makedirs(dataset.DATA, exist_ok=True)
    frames, labels = bench_rig.session(101, 240)
    write_records(dataset.BENCH, frames)
    with open(dataset.BENCH_LABELS, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seq", "condition_id", "condition"])
        for i, c in enumerate(labels):
            w.writerow([i, int(c), bench_rig.CONDITIONS[c]])
    write_records(dataset.CALIB, bench_rig.session(102, 64)[0])
    write_records(os.path.join(dataset.DATA, "site_b_pump3.pwr"), bench_rig.session(103, 12)[0])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    record_sessions()
    frames, labels = bench_rig.session(100, 3000)
    phys = [dataset.to_physical(f) for f in frames]
    std = dataset.Standardiser.fit(phys)
    std.save()
    x = torch.from_numpy(np.stack([dataset.model_ready(f, std) for f in frames]))
    y = torch.from_numpy(labels)
    (xe,), ye = dataset.eval_windows()
    net = PumpNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=EPOCHS * ((len(frames) + 63) // 64))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.3f}, bench accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
