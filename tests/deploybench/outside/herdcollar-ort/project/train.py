"""Fits the channel standardisation (collar/channel_stats.json) and trains GaitTCN on 2,000
rendered windows; writes weights/gait_tcn.pt. Deterministic: fixed seeds, one thread, seconds."""
import numpy as np
import torch
from torch import nn

import holdout
from collar.gait_tcn import WEIGHTS, GaitTCN
from collar.motion import render_windows
from collar.units import ChannelStandardiser, counts_to_physical

EPOCHS = 15


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    counts, labels = render_windows(2000, seed=7)
    std = ChannelStandardiser.fit(counts_to_physical(counts))
    std.save()
    x = torch.from_numpy(holdout.model_ready(counts, std))
    y = torch.from_numpy(labels)
    net = GaitTCN()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    holdout._holdout.cache_clear()
    (xe,), ye = holdout.labelled_windows()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"holdout accuracy {acc:.4f} on {len(ye)} windows")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
