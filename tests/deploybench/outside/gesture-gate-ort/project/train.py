"""Train GestureNet on synthetic accelerometer windows; writes checkpoints/gesture_net.pt.

    python train.py            # ~20 s on one CPU thread
"""
import argparse

import torch
from torch import nn

from gesture import imu
from gesture.net import CHECKPOINT, build


def evaluate(net):
    (x,), y = imu.held_out_set()
    net.eval()
    with torch.no_grad():
        return (net(x).argmax(1) == y).float().mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--lr", type=float, default=3e-3)
    args = ap.parse_args()

    torch.manual_seed(7)
    torch.set_num_threads(1)
    x, y = imu.training_set()
    net = build()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    g = torch.Generator().manual_seed(7)
    for epoch in range(args.epochs):
        net.train()
        total = 0.0
        for idx in torch.randperm(len(y), generator=g).split(64):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        print(f"epoch {epoch + 1:2d}  loss {total / len(y):.4f}  held-out acc {evaluate(net):.4f}")
    torch.save(net.state_dict(), CHECKPOINT)
    print(f"wrote {CHECKPOINT}")


if __name__ == "__main__":
    main()
