"""Train the motion-levels network and write motion_params.pt (fixed seeds, one thread, seconds)."""
import torch
from torch import nn

import signals
from nets.motion import PARAMS, MotionNet


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = MotionNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    for step in range(300):
        net.train()
        x, y = signals.synthesize(64, seed=1000 + step)
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    net.eval()
    (xe,), ye = signals.labelled_windows()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"evaluation accuracy {acc:.4f}")
    torch.save(net.state_dict(), PARAMS)
    print(f"wrote {PARAMS}")


if __name__ == "__main__":
    main()
