"""Train the kernel grader on synthetic sorter runs. Writes weights/kernelnet.pt and the lots the
deployment evaluates and calibrates with. Deterministic: fixed seeds, one thread."""
import os

import numpy as np
import torch
from torch import nn

from kernelnet.conditioning import Conditioner
from kernelnet.model import WEIGHTS, KernelGrader
from kernelnet.spectra import make_lot
from sorter.lots import LotRecording

EPOCHS, BATCH = 25, 64


def lot(n, seed):
    raw, dark, white, grades = make_lot(n, seed)
    return LotRecording(raw, dark, white, grades)


def tensors(rec):
    return torch.from_numpy(Conditioner(rec.dark, rec.white)(rec.raw)), torch.from_numpy(rec.grades)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    runs = [lot(1000, s) for s in (11, 12, 13)]
    lab, cal = lot(500, 21), lot(64, 22)
    lab.save("lab_graded_lot.npz")
    LotRecording(cal.raw, cal.dark, cal.white).save("calibration_run.npz")
    xs, ys = zip(*(tensors(r) for r in runs))
    x, y = torch.cat(xs), torch.cat(ys)
    xe, ye = tensors(lab)
    net = KernelGrader()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-3)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(0)
    for ep in range(EPOCHS):
        net.train()
        perm = torch.randperm(len(y), generator=gen)
        tot = 0.0
        for i in range(0, len(y), BATCH):
            idx = perm[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {ep + 1}: loss {tot / len(y):.4f}  lab-lot accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print("wrote", WEIGHTS)


if __name__ == "__main__":
    main()
