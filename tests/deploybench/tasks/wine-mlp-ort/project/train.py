"""Train the cultivar MLP on the 118 training rows; writes wine_mlp.pt (fixed seed, seconds)."""
import torch
from torch import nn

from wine_clf import features
from wine_clf.network import PARAMS, CultivarMLP


def main(steps=300):
    torch.manual_seed(2)
    torch.set_num_threads(1)
    x, y = features.train_split()
    net = CultivarMLP()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2, weight_decay=1e-3)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    net.eval()
    (xt,), yt = features.test_split()
    with torch.no_grad():
        print(f"test accuracy {(net(xt).argmax(1) == yt).float().mean().item():.4f}")
    torch.save(net.state_dict(), PARAMS)


if __name__ == "__main__":
    main()
