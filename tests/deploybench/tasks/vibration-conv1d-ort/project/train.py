"""Train ConditionsNet on 1,000 synthetic windows; writes conditions_net.pt (fixed seed; about a
minute on one thread)."""
import torch
from torch import nn

from conditions_net import SAVED, ConditionsNet
from signal_lib import synth


def main(epochs=6):
    torch.manual_seed(6)
    torch.set_num_threads(1)
    x, y = synth.fit_windows()
    net = ConditionsNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(6)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(50):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xc,), yc = synth.check_windows()
    with torch.no_grad():
        print(f"check accuracy {(net(xc).argmax(1) == yc).float().mean().item():.4f}")
    torch.save(net.state_dict(), SAVED)


if __name__ == "__main__":
    main()
