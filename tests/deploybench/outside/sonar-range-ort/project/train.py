"""Fit RangeNet on 3,000 synthetic pings; writes checkpoints/rangenet.pt (one thread, fixed seeds)."""
import torch
import torch.nn.functional as F

import echoes
from rangenet import CHECKPOINT, RangeNet


def fit(epochs=15, batch=64, lr=4e-3):
    torch.set_num_threads(1)
    torch.manual_seed(17)
    x, y = echoes.training_set()
    net = RangeNet()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    order = torch.Generator().manual_seed(17)
    for epoch in range(epochs):
        net.train()
        total = 0.0
        for idx in torch.randperm(len(y), generator=order).split(batch):
            opt.zero_grad()
            loss = F.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1:2d}  loss {total / len(y):.4f}")
    net.eval()
    (xe,), ye = echoes.evaluation_set()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"held-out accuracy {acc:.4f} on {len(ye)} pings")
    CHECKPOINT.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    fit()
