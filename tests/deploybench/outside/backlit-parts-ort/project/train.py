"""Train SilhouetteNet on frames/train_frames.npz and write checkpoint/silhouette_net.pt.
Deterministic (fixed seeds, one thread); a few seconds on a laptop CPU."""
import torch
from torch import nn

import conveyor_data
from silhouette_net import CHECKPOINT, SilhouetteNet

EPOCHS = 25


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x, y = conveyor_data.load("train")
    (xe,), ye = conveyor_data.holdout()
    net = SilhouetteNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 32):
            idx = order[i:i + 32]
            # flips and 90-degree turns: a part can lie either way up on the belt
            xb = x[idx]
            if epoch % 2:
                xb = xb.flip(-1)
            xb = torch.rot90(xb, k=epoch % 4, dims=(-2, -1))
            opt.zero_grad()
            nn.functional.cross_entropy(net(xb), y[idx]).backward()
            opt.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: holdout accuracy {acc:.4f}")
    torch.save(net.state_dict(), CHECKPOINT)
    print(f"wrote {CHECKPOINT}")


if __name__ == "__main__":
    main()
