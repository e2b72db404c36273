"""Train RoomNet on simulated ceiling-sensor frames; writes weights/roomnet.pt and the
annotated / calibration recordings. Deterministic (fixed seeds, one thread)."""
import os

import numpy as np
import torch
from torch import nn

from sensor_gateway import DECODE, RECORDINGS
from wardsense.net import WEIGHTS, RoomNet
from wardsense.simulate import simulate

EPOCHS, BATCH = 10, 64


def decode_all(raw):
    return torch.cat([DECODE(r) for r in raw])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tr, ytr = simulate(3000, 21)
    ev, yev = simulate(500, 22)
    cal, _ = simulate(64, 23)
    os.makedirs(RECORDINGS, exist_ok=True)
    np.savez_compressed(os.path.join(RECORDINGS, "ward_annotated.npz"), raw=ev, states=yev)
    np.savez_compressed(os.path.join(RECORDINGS, "ward_calibration.npz"), raw=cal)
    net = RoomNet()
    # the ranger is fixed preprocessing: compute it once for the training set
    with torch.no_grad():
        x = net.ranger(decode_all(tr))
        xe = net.ranger(decode_all(ev))
    y, ye = torch.from_numpy(ytr), torch.from_numpy(yev)
    body = lambda t: net.classify(net.features(t).mean(dim=(-2, -1), keepdim=True).flatten(1))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(body(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (body(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, annotated accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
