"""Train ParcelPointNet on freshly generated scans (fixed seeds) and write
weights/parcel_pointnet.pt. Each batch uses one random point count between 96 and 448 so that the
network is trained for the counts the station sees, not only the loader's 256. ~10 s on 2 cores."""
import numpy as np
import torch
from torch import nn

import belt_data
from sorter.geometry import make_scans
from sorter.pointnet import ParcelPointNet
from sorter.prep import centre_and_scale, resample

EPOCHS, BATCH, TRAIN_SCANS = 24, 32, 1200


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    scans, labels = make_scans(seed=1, count=TRAIN_SCANS)
    scans = [centre_and_scale(s) for s in scans]
    labels = torch.from_numpy(labels)
    net = ParcelPointNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    for epoch in range(EPOCHS):
        net.train()
        order = rng.permutation(TRAIN_SCANS)
        total = 0.0
        for i in range(0, TRAIN_SCANS, BATCH):
            idx = order[i:i + BATCH]
            count = int(rng.integers(96, 449))
            x = torch.from_numpy(np.stack([resample(scans[j], count, rng) for j in idx]))
            loss = nn.functional.cross_entropy(net(x), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        if epoch % 6 == 5 or epoch == EPOCHS - 1:
            net.eval()
            (xe,), ye = belt_data.holdout()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / TRAIN_SCANS:.4f}, holdout accuracy {acc:.4f}")
    torch.save(net.state_dict(), belt_data.WEIGHTS)
    print(f"wrote {belt_data.WEIGHTS}")


if __name__ == "__main__":
    main()
