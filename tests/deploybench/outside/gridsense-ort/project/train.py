"""Train PQNet on synthetic windows (fixed seed, under a minute on one CPU thread);
writes weights/pqnet.pt."""
import torch
from torch import nn

from powerq.classifier import WEIGHTS, PQNet
from powerq.waveforms import substation_holdout, training_windows

EPOCHS, BATCH, LR = 15, 32, 3e-3

torch.manual_seed(0)
torch.set_num_threads(1)
x, y = training_windows()
net = PQNet()
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
(xh,), yh = substation_holdout()
with torch.no_grad():
    print(f"holdout accuracy {(net(xh).argmax(1) == yh).float().mean():.4f}")
    print(f"smoother gain {net.smoother.gain.item():.3f}, kernel {net.smoother.kernel.weight.flatten().numpy().round(3)}")
torch.save(net.state_dict(), WEIGHTS)
