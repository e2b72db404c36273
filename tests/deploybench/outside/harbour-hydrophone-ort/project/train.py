"""Train HarbourListener on freshly synthesised clips (fixed seeds, int16-rounded like the
recorder) and write weights/harbour_listener.pt. About 10 s on 2 cores."""
import torch
from torch import nn

import harbour_data
from hydro.listener import HarbourListener
from hydro.scene import from_counts, make_clips, to_counts

EPOCHS, BATCH = 20, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, y = make_clips(seed=5, count=1600)
    x = torch.from_numpy(from_counts(to_counts(x))[:, None, :].copy())
    y = torch.from_numpy(y)
    net = HarbourListener()
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=3e-3, weight_decay=1e-2)
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
        if epoch % 5 == 4:
            net.eval()
            (xe,), ye = harbour_data.labelled_clips()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}")
    torch.save(net.state_dict(), harbour_data.WEIGHTS)
    print(f"wrote {harbour_data.WEIGHTS}")


if __name__ == "__main__":
    main()
