"""Train PQNet on synthetic monitor windows and write weights/pqnet_r2.pt.
Deterministic (fixed seeds, one thread); well under a minute on a laptop CPU."""
import numpy as np
import torch
from torch import nn

from pqmon.entries import acceptance_records
from pqmon.pqnet import WEIGHTS, PQNet
from pqmon.recorder import to_counts
from pqmon.waveforms import batch

EPOCHS = 8


def training_windows(n=2400, seed=5):
    v, labels = batch(n, seed)
    counts, scales = to_counts(v, np.random.default_rng(seed + 1))
    x = counts.astype(np.float32) * scales[:, :, None]
    return torch.from_numpy(x), torch.from_numpy(labels)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x, y = training_windows()
    net = PQNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(0)
    (xe,), ye = acceptance_records()
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, acceptance accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
