"""Train the glaze defect classifier on synthetic line-camera frames; writes weights/glaze_net.pt
and the QA / calibration shifts. Deterministic (fixed seeds, one thread)."""
import os
import time

import numpy as np
import torch
from torch import nn

from glaze.net import WEIGHTS, build
from glaze.synth import generate
from line_camera import CAPTURES

EPOCHS, BATCH = 10, 32


def to_tensor(frames):
    return torch.from_numpy(frames.astype(np.float32) / 255.0).unsqueeze(1)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    t0 = time.time()
    tr, ytr = generate(1600, 11)
    ev, yev = generate(400, 12)
    cal, _ = generate(64, 13)
    os.makedirs(CAPTURES, exist_ok=True)
    np.savez_compressed(os.path.join(CAPTURES, "qa_shift.npz"), frames=ev, defects=yev)
    np.savez_compressed(os.path.join(CAPTURES, "calib_shift.npz"), frames=cal)
    x, y = to_tensor(tr), torch.from_numpy(ytr)
    xe, ye = to_tensor(ev), torch.from_numpy(yev)
    net = build()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps)
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
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, QA accuracy {acc:.4f} ({time.time() - t0:.0f}s)", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
