"""Train GradeNet on synthetic line-camera frames; writes weights/gradenet.pt and the recorded
frame sessions frames/*.npz the deployment evaluates and calibrates with.
Deterministic: fixed seeds, one thread; well under a minute."""
import os

import numpy as np
import torch
from torch import nn

from camera.capture import FRAMES_DIR
from grader.net import WEIGHTS, GradeNet
from grader.prep import crops_to_batch
from grader.scenes import render

EPOCHS, BATCH = 6, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    ftr, ytr = render(2400, seed=21)
    fev, yev = render(360, seed=22)
    fcal, _ = render(64, seed=23)
    os.makedirs(FRAMES_DIR, exist_ok=True)
    np.savez_compressed(os.path.join(FRAMES_DIR, "audit_shift.npz"), frames=fev, kinds=yev, pixel_order="bgr")
    np.savez_compressed(os.path.join(FRAMES_DIR, "warmup_shift.npz"), frames=fcal, pixel_order="bgr")
    x, y = crops_to_batch(ftr), torch.from_numpy(ytr)
    xe, ye = crops_to_batch(fev), torch.from_numpy(yev)
    print(f"train crops mean {x.mean((0, 2, 3)).tolist()} std {x.std((0, 2, 3)).tolist()}")
    net = GradeNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
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
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
