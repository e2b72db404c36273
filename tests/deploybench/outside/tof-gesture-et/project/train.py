"""Train GestureNet on simulated captures -> weights/gesturenet.pt (seeded, one thread, ~20 s)."""
import torch
from torch import nn

from zonegest import prep
from zonegest.gesturenet import WEIGHTS, GestureNet

EPOCHS = 15
BATCH = 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    x, y = prep.training_clips()
    (xe,), ye = prep.eval_clips()
    net = GestureNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.4f} eval acc {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
