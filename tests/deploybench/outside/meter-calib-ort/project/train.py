"""Train LoadTierNet; writes checkpoints/load_tier_net.pt and (re)writes the calibration log.

    python train.py       # ~20 s, one thread
"""
import torch
from torch import nn

from loadnet import ARCH, CHECKPOINT, LoadTierNet
from meterdata import logs, sets


def main(epochs=40, batch=128):
    torch.manual_seed(11)
    torch.set_num_threads(1)
    x, y = sets.training_days()
    (xt,), yt = sets.test_days()
    net = LoadTierNet(**ARCH)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    g = torch.Generator().manual_seed(11)
    for epoch in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(batch):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        if (epoch + 1) % 10 == 0:
            net.eval()
            with torch.no_grad():
                acc = (net(xt).argmax(1) == yt).float().mean().item()
            print(f"epoch {epoch + 1}: test accuracy {acc:.4f}")
    torch.save(net.state_dict(), CHECKPOINT)
    logs.write_meter_log()
    print(f"wrote {CHECKPOINT} and {logs.CALIBRATION_LOG}")


if __name__ == "__main__":
    main()
