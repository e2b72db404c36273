"""Train SniffNet on simulated sniff cycles; writes weights/sniffnet.pt and the two logged
sessions the deployment evaluates (tank7_lab_checked: lab-confirmed states) and calibrates
(tank3_week12: unlabelled) with. Fixed seeds, one thread; well under a minute."""
import os

import numpy as np
import torch
from torch import nn

from headspace.chemistry import generate
from headspace.net import WEIGHTS, SniffNet
from headspace.readout import ResponseConverter
from tank_monitor import LOGS

EPOCHS, BATCH, LR = 15, 64, 3e-3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tr_counts, tr_y = generate(2400, seed=21)
    ev_counts, ev_y = generate(400, seed=22)
    cal_counts, _ = generate(64, seed=23)
    os.makedirs(LOGS, exist_ok=True)
    np.savez_compressed(os.path.join(LOGS, "tank7_lab_checked.npz"), counts=ev_counts, states=ev_y)
    np.savez_compressed(os.path.join(LOGS, "tank3_week12.npz"), counts=cal_counts)

    conv = ResponseConverter()
    x, y = torch.from_numpy(conv(tr_counts)), torch.from_numpy(tr_y)
    xe, ye = torch.from_numpy(conv(ev_counts)), torch.from_numpy(ev_y)
    net = SniffNet()
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1:2d}  loss {loss.item():.4f}  lab-checked accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
