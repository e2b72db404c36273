"""Train the flaw net on simulated B-scans; writes weights/flawnet.pt and the two logged jobs
(0412 reviewed, 0415 for calibration). Fixed seeds; about a minute, one thread."""
import os
import time

import numpy as np
import torch
from torch import nn

from inspection_station import SCANS, EnvelopeFrame
from ut.bscan_sim import generate
from ut.flawnet import WEIGHTS, make_flawnet

EPOCHS, BATCH, LR = 24, 64, 4e-3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tr_counts, tr_y = generate(2000, seed=31)
    ev_counts, ev_y = generate(400, seed=32)
    cal_counts, _ = generate(96, seed=33)
    os.makedirs(SCANS, exist_ok=True)
    np.savez_compressed(os.path.join(SCANS, "weld_job_0412.npz"), counts=ev_counts, flaws=ev_y)
    np.savez_compressed(os.path.join(SCANS, "weld_job_0415.npz"), counts=cal_counts)

    frame = EnvelopeFrame()
    x, y = frame(tr_counts), torch.from_numpy(tr_y)
    xe, ye = frame(ev_counts), torch.from_numpy(ev_y)
    net = make_flawnet()
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    t0 = time.time()
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            xb = x[idx]
            flip = torch.rand(len(idx), generator=gen) < 0.5          # a scan read the other way along the weld
            xb = torch.where(flip[:, None, None, None], xb.flip(-1), xb)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xb), y[idx], label_smoothing=0.05)
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1:2d}  loss {loss.item():.4f}  reviewed-job accuracy {acc:.4f}  ({time.time() - t0:.0f} s)", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
