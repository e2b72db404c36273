"""Record the rig sessions (data/) and train RegimeNet (drivesense/regime_net.pt).

Deterministic: fixed seeds, one thread; about ten seconds.
"""
import os

import numpy as np
import torch
from torch import nn

from drivesense import belt_windows as bw
from drivesense.regime_net import WEIGHTS, RegimeNet

EPOCHS = 40


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.makedirs(bw.DATA, exist_ok=True)
    bw.save_session(bw.EVAL_FILE, *bw.record_windows(201, 300))
    bw.save_session(bw.CALIB_FILE, *bw.record_windows(202, 64))
    counts, labels = bw.record_windows(200, 3000)
    x, y = torch.from_numpy(bw.counts_to_input(counts)), torch.from_numpy(labels)
    (xe,), ye = bw.eval_windows()
    net = RegimeNet()
    steps = EPOCHS * ((len(y) + 63) // 64)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=steps)
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
            print(f"epoch {epoch + 1}: loss {loss.item():.3f}, rig accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
