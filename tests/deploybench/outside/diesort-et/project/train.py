"""Trains WaferPatternNet on synthetic probe lots and writes the lot files the app reads.

    python train.py      (about a minute on 2 CPU cores)
"""
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from probe.net import WEIGHTS, WaferPatternNet
from probe.synth import make_lot
from sorter_app import LOTS


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(LOTS, exist_ok=True)
    ev_bins, ev_y, ev_dense = make_lot(480, seed=4417)
    np.savez_compressed(os.path.join(LOTS, "lot_Q4417.npz"), bins=ev_bins, signature=ev_y)
    cal_bins, _, _ = make_lot(64, seed=4420)
    np.savez_compressed(os.path.join(LOTS, "lot_Q4420_unreviewed.npz"), bins=cal_bins)

    tr_bins, tr_y, _ = make_lot(3000, seed=1)
    x = torch.from_numpy(tr_bins.astype(np.float32) / 2.0).unsqueeze(1)
    y = torch.from_numpy(tr_y)
    xe = torch.from_numpy(ev_bins.astype(np.float32) / 2.0).unsqueeze(1)
    ye = torch.from_numpy(ev_y)

    net = WaferPatternNet()
    epochs, bs = 8, 64
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * ((len(y) + bs - 1) // bs))
    g = torch.Generator().manual_seed(0)
    t0 = time.time()
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(y), generator=g)
        for i in range(0, len(y), bs):
            idx = perm[i:i + bs]
            xb = x[idx]
            # augmentation: wafer maps have no preferred orientation
            if torch.rand(1, generator=g).item() < 0.5:
                xb = xb.flip(-1)
            xb = torch.rot90(xb, int(torch.randint(0, 4, (1,), generator=g)), (2, 3))
            loss = F.cross_entropy(net(xb), y[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            pe = net(xe).argmax(1)
        acc = (pe == ye).float().mean().item()
        dacc = (pe == ye)[torch.from_numpy(ev_dense)].float().mean().item()
        print(f"epoch {ep} loss {loss.item():.3f} eval acc {acc:.4f} (dense-lot wafers {dacc:.4f}) {time.time() - t0:.0f}s")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
