"""Train the bay-number reader; writes weights/slipnet_r4.pt (fixed seeds, one thread, < 1 min)."""
import os

import numpy as np
import torch
from torch import nn

from slipcam.backbone import _ROOT, build_backbone
from slipcam.config import TRAIN, WEIGHTS
from slipcam.render import training_crops
from slipcam.tensors import holdout, training_set


def main(cfg=TRAIN):
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    crops, _ = training_crops()
    x01 = crops.astype(np.float32) / 255.0
    print("channel mean", x01.mean((0, 1, 2)).round(4), "std", x01.std((0, 1, 2)).round(4))
    x, y = training_set()
    net = build_backbone()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=cfg.epochs * ((len(y) + cfg.batch - 1) // cfg.batch))
    g = torch.Generator().manual_seed(cfg.seed)
    for epoch in range(cfg.epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(cfg.batch):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
            sched.step()
    net.eval()
    (xe,), ye = holdout()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"holdout accuracy {acc:.4f}")
    os.makedirs(os.path.join(_ROOT, "weights"), exist_ok=True)
    torch.save(net.state_dict(), os.path.join(_ROOT, WEIGHTS))


if __name__ == "__main__":
    main()
