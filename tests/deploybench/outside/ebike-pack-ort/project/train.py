"""Train PackHealthNet on freshly simulated windows (fixed seeds) and write weights/packhealth.pt.
A few seconds on 2 cores."""
import numpy as np
import torch
from torch import nn

import pack_entries
from packhealth.classifier import PackHealthNet
from telemetry.codec import decode, encode
from telemetry.simulate import make_windows

EPOCHS, BATCH = 30, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, y = make_windows(seed=7, count=2400)
    x = torch.from_numpy(decode(np.stack([encode(w) for w in x])))  # the CAN log's resolution
    y = torch.from_numpy(y)
    net = PackHealthNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        if epoch % 10 == 9:
            net.eval()
            (xe,), ye = pack_entries.eval_windows()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}")
    torch.save(net.state_dict(), pack_entries.WEIGHTS)
    print(f"wrote {pack_entries.WEIGHTS}")


if __name__ == "__main__":
    main()
