"""Train the cavity-pressure quality net on simulated cycles; writes weights/cavity_net.pt and
the two logged runs the deployment evaluates (qc_audit) and calibrates (night_shift) with.
Deterministic: fixed seeds, one thread. About a minute on two cores."""
import os

import numpy as np
import torch
from torch import nn

from cell_controller import SHOTS, DaqScaling
from moldsense.network import WEIGHTS, CavityQualityNet
from moldsense.simulate import generate

EPOCHS, BATCH, LR = 25, 64, 3e-3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    train_codes, train_y = generate(2400, seed=11)
    audit_codes, audit_y = generate(400, seed=12)
    night_codes, _ = generate(64, seed=13)
    os.makedirs(SHOTS, exist_ok=True)
    np.savez_compressed(os.path.join(SHOTS, "qc_audit.npz"), codes=audit_codes, verdicts=audit_y)
    np.savez_compressed(os.path.join(SHOTS, "night_shift.npz"), codes=night_codes)

    scale = DaqScaling()
    x, y = torch.from_numpy(scale(train_codes)), torch.from_numpy(train_y)
    xa, ya = torch.from_numpy(scale(audit_codes)), torch.from_numpy(audit_y)
    net = CavityQualityNet()
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=1e-2)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xa).argmax(1) == ya).float().mean().item()
        print(f"epoch {epoch + 1:2d}  loss {total / len(y):.4f}  audit accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
