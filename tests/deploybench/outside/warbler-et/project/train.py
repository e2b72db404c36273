"""Train CallNet on synthetic clips (fixed seed, under a minute on one CPU thread);
writes weights/callnet-s.pt."""
import os

import torch
from torch import nn

from birdcalls.datasets import holdout, training_set
from birdcalls.net import build
from birdcalls.net.callnet import WEIGHTS_DIR

NAME, EPOCHS, BATCH, LR = "callnet-s", 12, 64, 3e-3

torch.manual_seed(0)
torch.set_num_threads(1)
x, y = training_set()
net = build(NAME)
opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * ((len(x) + BATCH - 1) // BATCH))
for epoch in range(EPOCHS):
    net.train()
    for batch in torch.randperm(len(x)).split(BATCH):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x[batch]), y[batch]).backward()
        opt.step()
        sched.step()
net.eval()
(xh,), yh = holdout()
with torch.no_grad():
    print(f"holdout accuracy {(net(xh).argmax(1) == yh).float().mean():.4f}")
torch.save(net.state_dict(), os.path.join(WEIGHTS_DIR, f"{NAME}.pt"))
