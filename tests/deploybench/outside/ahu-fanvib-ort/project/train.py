"""Train FanFaultNet on v0.5 spectra (fixed seeds, under half a minute on 2 cores)."""
import time

import torch
from torch import nn

import hooks
from fanvib.model import WEIGHTS, FanFaultNet

EPOCHS = 3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    x, y = hooks.spectra(hooks.TRAIN), torch.from_numpy(hooks.windows(hooks.TRAIN)[1])
    (xe,), ye = hooks.eval_set()
    net = FanFaultNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(0)
    t0 = time.time()
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        if epoch % 3 == 2:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: eval accuracy {acc:.4f} ({time.time() - t0:.1f}s)")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
