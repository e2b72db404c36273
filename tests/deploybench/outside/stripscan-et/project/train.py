"""Train the tile classifier on synthetic graded tiles; writes weights/stripnet.pt and data/*.npz."""
import os

import numpy as np
import torch
from torch import nn

from line_station import DATA, TileEncoder
from stripscan.network import WEIGHTS, StripDefectNet
from stripscan.synth import make_tiles


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(DATA, exist_ok=True)
    tiles, pos, labels = make_tiles(400, seed=2)
    np.savez_compressed(os.path.join(DATA, "shift_b_graded.npz"), tiles=tiles, pos_mm=pos, labels=labels)
    ctiles, cpos, _ = make_tiles(64, seed=3)
    np.savez_compressed(os.path.join(DATA, "shift_c_ungraded.npz"), tiles=ctiles, pos_mm=cpos)

    enc = TileEncoder()
    tr_t, tr_p, tr_y = make_tiles(2000, seed=1)
    x, p = enc(tr_t, tr_p)
    y = torch.from_numpy(tr_y)
    net = StripDefectNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    epochs = 6
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * (len(y) // 64))
    lossf = nn.CrossEntropyLoss()
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(y))
        for i in range(0, len(y) - 63, 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            loss = lossf(net(x[b], p[b]), y[b])
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        ex, ep_ = enc(tiles, pos)
        with torch.no_grad():
            acc = (net(ex, ep_).argmax(1).numpy() == labels).mean()
        print(f"epoch {ep} loss {loss.item():.3f} eval acc {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
