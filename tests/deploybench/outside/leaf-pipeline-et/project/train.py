"""Train the leaf-patch classifier on 2,000 synthetic patches and write weights/leafnet.pt.
Fixed seeds, one thread, well under a minute on a laptop CPU."""
import torch
from torch import nn

from leafnet.model import WEIGHTS, LeafClassifier
from leafnet.patches import holdout, training_split

HYPER = {"epochs": 10, "batch": 64, "lr": 4e-3, "seed": 7}


def accuracy(net, x, y):
    with torch.no_grad():
        return (net(x).argmax(1) == y).float().mean().item()


def main(hp=HYPER):
    torch.set_num_threads(1)
    torch.manual_seed(hp["seed"])
    x, y = training_split()
    net = LeafClassifier()
    opt = torch.optim.AdamW(net.parameters(), lr=hp["lr"])
    order = torch.Generator().manual_seed(hp["seed"])
    for epoch in range(hp["epochs"]):
        net.train()
        for idx in torch.randperm(len(y), generator=order).split(hp["batch"]):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        net.eval()
        print(f"epoch {epoch + 1}: train accuracy {accuracy(net, x, y):.4f}")
    (xh,), yh = holdout()
    print(f"holdout accuracy {accuracy(net, xh, yh):.4f} on {len(yh)} patches")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
