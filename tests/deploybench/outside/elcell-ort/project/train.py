"""Train the EL inspector ViT on synthetic cell crops; writes weights/el_vit.pt, the QA lot the
deployment evaluates on and the line archive's shift it calibrates with. Fixed seeds."""
import os

import numpy as np
import torch
from torch import nn

from elinspect.model import WEIGHTS, CellInspector
from elinspect.normalise import CountNormaliser
from elinspect.synth import cells
from station.archive import LineArchive, QALot

EPOCHS, BATCH = 6, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    norm = CountNormaliser()
    tr, ytr = cells(2500, 1)
    ev, yev = cells(400, 2)
    sh, _ = cells(96, 3)
    QALot(ev, yev).save("qa_lot.npz")
    LineArchive.write_shift("shift_b.npz", sh)
    x, y = torch.from_numpy(norm(tr)), torch.from_numpy(ytr)
    xe, ye = torch.from_numpy(norm(ev)), torch.from_numpy(yev)
    net = CellInspector()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=0.05)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps, pct_start=0.2)
    gen = torch.Generator().manual_seed(0)
    for ep in range(EPOCHS):
        net.train()
        perm = torch.randperm(len(y), generator=gen)
        tot = 0.0
        for i in range(0, len(y), BATCH):
            idx = perm[i:i + BATCH]
            xb = x[idx]
            flip = torch.rand(len(idx), generator=gen) < 0.5
            xb = torch.where(flip[:, None, None, None], xb.flip(-1), xb)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xb), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {ep + 1}: loss {tot / len(y):.4f}  QA-lot accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print("wrote", WEIGHTS)


if __name__ == "__main__":
    main()
