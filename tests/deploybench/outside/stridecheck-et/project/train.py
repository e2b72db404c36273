"""Trains StrideNet on simulated wear-time (fixed seeds, under a minute on 2 cores)."""
import torch
from torch import nn

from imu.net import WEIGHTS, StrideNet
from imu.synth import simulate_set
from imu.windows import WindowAssembler


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    acc, gyr, y = simulate_set(seed=7, n=2000)
    x = WindowAssembler()(acc, gyr)
    y = torch.from_numpy(y)
    net = StrideNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    lossf = nn.CrossEntropyLoss()
    for epoch in range(4):
        net.train()
        perm = torch.randperm(len(y))
        for i in range(0, len(y), 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            loss = lossf(net(x[b]), y[b])
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    net.eval()
    torch.save(net.state_dict(), WEIGHTS)
    from hooks import field_eval
    (xe,), ye = field_eval()
    with torch.no_grad():
        acc_eval = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"eval accuracy {acc_eval:.4f}")


if __name__ == "__main__":
    main()
