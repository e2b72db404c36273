"""Train StrideNet on simulated sessions (in g); writes weights/stridenet.pt (fixed seed, one thread)."""
import torch
from torch import nn

from bandlab.data import holdout_windows, training_windows
from bandlab.net import WEIGHTS, StrideNet


def main(epochs=25, seed=8):
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    x, y = training_windows()
    print("training windows", tuple(x.shape), "class counts", torch.bincount(y).tolist())
    net = StrideNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(32):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = holdout_windows()
    with torch.no_grad():
        print(f"holdout accuracy {(net(xe).argmax(1) == ye).float().mean():.4f} on {len(ye)} windows")
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
