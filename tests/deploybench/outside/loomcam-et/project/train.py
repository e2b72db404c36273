"""Train FabricNet on a synthetic roll (fixed seeds, 2 threads, about 2 minutes on 2 shared cores)."""
import time

import torch
from torch import nn

import hooks
from loomcam.net import WEIGHTS, FabricNet
from loomcam.prep import frames_to_batch

EPOCHS = 4


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    frames, labels = hooks.roll(hooks.TRAIN_ROLL)
    x, y = torch.from_numpy(frames_to_batch(frames)), torch.from_numpy(labels)
    (xe,), ye = hooks.eval_roll()
    net = FabricNet()
    opt = torch.optim.AdamW(net.parameters(), lr=4e-3, weight_decay=1e-4)
    steps = EPOCHS * ((len(y) + 63) // 64)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps)
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
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: eval accuracy {acc:.4f}, p={net.pool.p.item():.3f}, {time.time() - t0:.1f}s")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
