"""Train the tap encoder on simulated windows (fixed seed, ~40 s on one CPU thread);
writes checkpoints/tap_encoder.pt."""
import torch
from torch import nn

from wristband.encoder import CHECKPOINT, TapEncoder
from wristband.signals import holdout, training_windows

EPOCHS, BATCH, LR = 40, 64, 3e-3

torch.manual_seed(0)
torch.set_num_threads(1)
x, y = training_windows()
net = TapEncoder()
opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=0.01)
steps = EPOCHS * ((len(x) + BATCH - 1) // BATCH)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps)
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
torch.save(net.state_dict(), CHECKPOINT)
