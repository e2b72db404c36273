"""Train ThermalNet on 1,600 synthetic frames; writes weights/thermal_net.pt (fixed seeds, one
thread, seconds)."""
import torch
from torch import nn

import frames
from thermal_net import WEIGHTS, ThermalNet


def main(epochs=12):
    torch.manual_seed(5)
    torch.set_num_threads(1)
    x, y = frames.training_frames()
    net = ThermalNet()
    opt = torch.optim.Adam(net.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(5)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = frames.evaluation_frames()
    with torch.no_grad():
        print(f"evaluation accuracy {(net(xe).argmax(1) == ye).float().mean().item():.4f}")
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
