"""Train WristNet on data/windows.npz -> wristnet.pt (seed 0, a few seconds)."""
import torch
from torch import nn

from gaitband import corpus
from gaitband.wristnet import WEIGHTS, WristNet

EPOCHS = 10


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, y = corpus.train_split()
    (xe,), ye = corpus.eval_windows()
    net = WristNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 32):
            idx = order[i:i + 32]
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.4f}  eval accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print("wrote", WEIGHTS)


if __name__ == "__main__":
    main()
