"""Train the tabular-screen MLP and write screen_weights.pt (fixed seed, one thread, a few seconds)."""
import torch
from torch import nn

import cohort
from screening import CHECKPOINT, OutlierTolerantMLP


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = OutlierTolerantMLP()
    x, y = cohort.training_records()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(150):
        net.train()
        for idx in torch.randperm(len(y), generator=gen).split(32):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = cohort.holdout()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"holdout accuracy {acc:.4f}")
    torch.save(net.state_dict(), CHECKPOINT)
    print(f"wrote {CHECKPOINT}")


if __name__ == "__main__":
    main()
