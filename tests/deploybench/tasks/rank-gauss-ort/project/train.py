"""Train the rank-gauss MLP and write ranknet_state.pt (fixed seed, one thread, seconds)."""
import torch
from torch import nn

import feature_store
from ranknet import STATE, RankGaussNet


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = RankGaussNet()
    x, y = feature_store.training_rows()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(60):
        net.train()
        for idx in torch.randperm(len(y), generator=gen).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = feature_store.scored_rows()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"held-out accuracy {acc:.4f}")
    torch.save(net.state_dict(), STATE)
    print(f"wrote {STATE}")


if __name__ == "__main__":
    main()
