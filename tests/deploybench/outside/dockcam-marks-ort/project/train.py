"""Train the mark recogniser on synthetic dock captures and write weights/recognizer.pt.

Also writes the held-out capture log (captures/holdout.npz) and the calibration captures
(captures/calibration.npz) the deployment uses. Deterministic: fixed seeds, one thread.
"""
import os

import numpy as np
import torch
from torch import nn

from dockcam.glyphs import render_set
from dockcam.recognizer import WEIGHTS, MarkRecognizer

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN_SEED, HOLDOUT_SEED, CALIB_SEED = 11, 2024, 7
EPOCHS, BATCH = 8, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    frames, marks, _ = render_set(3000, TRAIN_SEED)
    hold = render_set(400, HOLDOUT_SEED)
    calib = render_set(64, CALIB_SEED)
    np.savez_compressed(os.path.join(HERE, "captures", "holdout.npz"), frames=hold[0], marks=hold[1], exposure=hold[2])
    np.savez_compressed(os.path.join(HERE, "captures", "calibration.npz"), frames=calib[0], exposure=calib[2])
    x = torch.from_numpy(frames).float().div(255).unsqueeze(1)
    y = torch.from_numpy(marks)
    xh = torch.from_numpy(hold[0]).float().div(255).unsqueeze(1)
    yh = torch.from_numpy(hold[1])
    model = MarkRecognizer()
    opt = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            acc = (model(xh).argmax(1) == yh).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, holdout accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
