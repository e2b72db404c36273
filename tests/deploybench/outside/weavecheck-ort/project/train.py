"""Train the weave inspector on synthetic loom tiles; writes params/inspector.pt and the review
and calibration captures. Deterministic (fixed seeds, one thread)."""
import os

import numpy as np
import torch
from torch import nn

from loom_station import DATA, STANDARDISE
from weavecheck.inspector import PARAMS, WeaveInspector
from weavecheck.synth import generate

EPOCHS, BATCH = 8, 64


def to_batch(tiles):
    return torch.cat([STANDARDISE(t) for t in tiles])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tr, ytr = generate(3000, 11)
    ev, yev = generate(500, 12)
    cal, _ = generate(64, 13)
    os.makedirs(DATA, exist_ok=True)
    np.savez_compressed(os.path.join(DATA, "shift_review.npz"), tiles=ev, defects=yev)
    np.savez_compressed(os.path.join(DATA, "shift_calibration.npz"), tiles=cal)
    x, y = to_batch(tr), torch.from_numpy(ytr)
    xe, ye = to_batch(ev), torch.from_numpy(yev)
    net = WeaveInspector()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
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
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, review accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(PARAMS), exist_ok=True)
    torch.save(net.state_dict(), PARAMS)
    print(f"wrote {PARAMS}")


if __name__ == "__main__":
    main()
