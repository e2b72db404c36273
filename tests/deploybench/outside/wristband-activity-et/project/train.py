"""Train ActivityNet on archives/train_sessions.npz (fixed seeds, one thread, a few seconds)
and write weights/activity_net.pt."""
import torch
from torch import nn

from har.network import WEIGHTS_PATH, ActivityNet
from har.sensors import load_archive

EPOCHS = 30


def main():
    torch.manual_seed(7)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    train, hold = load_archive("train_sessions"), load_archive("holdout_sessions")
    x, y = torch.from_numpy(train.accel_g), torch.from_numpy(train.activity)
    xe, ye = torch.from_numpy(hold.accel_g), torch.from_numpy(hold.activity)
    net = ActivityNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(7)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 50):
            idx = order[i:i + 50]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: holdout accuracy {acc:.4f}")
    WEIGHTS_PATH.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS_PATH)
    print(f"wrote {WEIGHTS_PATH}")


if __name__ == "__main__":
    main()
