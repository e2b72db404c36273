"""Trains PolymerNet on synthetic flake spectra and writes weights/polymernet.pt and the capture
sessions the deployment uses. Deterministic (fixed seeds, one thread), well under a minute.

Sessions written to captures/:
  line_handsorted.npz   400 flakes hand-sorted on the line, raw counts + the line scanner's refs
  line_live.npz         the live feed of the line scanner, raw counts + refs
  qa_export_wk12.npz    44 flakes of last week's QA export (the QA tool stores reflectance)
  bench_lab_march.npz   20 flakes measured on the lab's bench spectrometer, raw counts + its refs
"""
import os

import numpy as np
import torch
from torch import nn

from nirsort.archive import CAPTURES
from nirsort.network import WEIGHTS, PolymerNet
from nirsort.synth import instrument, reflectance, to_counts

EPOCHS, BATCH, LR = 30, 64, 3e-3


def save(name, **arrays):
    np.savez_compressed(os.path.join(CAPTURES, name), **arrays)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.makedirs(CAPTURES, exist_ok=True)
    line_dark, line_white = instrument(1, dark_level=500.0, white_level=30000.0)
    bench_dark, bench_white = instrument(2, dark_level=1800.0, white_level=52000.0)

    tr, ytr = reflectance(4000, 31)
    ev, yev = reflectance(400, 32)
    live, _ = reflectance(16, 33)
    qa, _ = reflectance(44, 34)
    bench, _ = reflectance(20, 35)
    save("line_handsorted.npz", values=to_counts(ev, line_dark, line_white, 41), unit="counts",
         dark=line_dark, white=line_white, labels=yev)
    save("line_live.npz", values=to_counts(live, line_dark, line_white, 42), unit="counts",
         dark=line_dark, white=line_white)
    save("qa_export_wk12.npz", values=qa.astype(np.float32), unit="reflectance")
    save("bench_lab_march.npz", values=to_counts(bench, bench_dark, bench_white, 43), unit="counts",
         dark=bench_dark, white=bench_white)

    # train on what the line delivers after radiometric calibration
    from nirsort.radiometry import Radiometry
    rad = Radiometry()
    x = torch.from_numpy(rad.counts_to_reflectance(to_counts(tr, line_dark, line_white, 40), line_dark, line_white)).unsqueeze(1)
    xe = torch.from_numpy(rad.counts_to_reflectance(to_counts(ev, line_dark, line_white, 41), line_dark, line_white)).unsqueeze(1)
    y, ye = torch.from_numpy(ytr), torch.from_numpy(yev)
    net = PolymerNet()
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
