"""Train SpoilageNet on the simulated training shipments; writes artifacts/spoilage_mlp.pt
(fixed seeds, one thread, seconds)."""
import torch
from torch import nn

from reefer.datasets import eval_split, train_split
from reefer.net import CHECKPOINT, SpoilageNet


def main(epochs=60, seed=4):
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    x, y = train_split()
    print("class counts", torch.bincount(y).tolist())
    net = SpoilageNet()
    net.scale.fit(x)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = eval_split()
    with torch.no_grad():
        print(f"train accuracy {(net(x).argmax(1) == y).float().mean():.4f}")
        print(f"eval accuracy {(net(xe).argmax(1) == ye).float().mean():.4f}")
    torch.save(net.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
