"""Train RingNet on data/scans_train.npz -> weights/ringnet_v3.pt (seeded, single thread, ~10 s)."""
import torch
from torch import nn

from rangefinder import datasets
from rangefinder.ringnet import WEIGHTS, RingNet

EPOCHS = 25
BATCH = 64


def random_heading(x, gen):
    """Augment: rotate each scan by a random whole number of beams."""
    shifts = torch.randint(0, x.shape[-1], (len(x),), generator=gen)
    idx = (torch.arange(x.shape[-1])[None, :] + shifts[:, None]) % x.shape[-1]
    return torch.gather(x, 2, idx[:, None, :])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(0)
    x, y = datasets.train_scans()
    (xe,), ye = datasets.eval_scans()
    net = RingNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(random_heading(x[idx], gen)), y[idx])
            loss.backward()
            opt.step()
        sched.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.4f} eval acc {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
