"""Train the pump state classifier on synthetic housing recordings; writes
params/pump_classifier.pt and the clips the deployment evaluates and calibrates with.
Deterministic (fixed seeds, one thread)."""
import os

import numpy as np
import torch
from torch import nn

from acoustics.classifier import PARAMS, PumpStateClassifier
from acoustics.synthesis import generate
from field_unit import CLIPS

EPOCHS, BATCH = 20, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    tr, ytr = generate(2000, 5)
    ev, yev = generate(400, 6)
    cal, _ = generate(64, 7)
    np.savez_compressed(os.path.join(CLIPS, "inspection_round.npz"), pcm=ev, states=yev)
    np.savez_compressed(os.path.join(CLIPS, "calibration_round.npz"), pcm=cal)
    x = torch.from_numpy(tr.astype(np.float32) / 32768.0).unsqueeze(1)
    y = torch.from_numpy(ytr)
    xe = torch.from_numpy(ev.astype(np.float32) / 32768.0).unsqueeze(1)
    ye = torch.from_numpy(yev)
    model = PumpStateClassifier()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
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
            acc = (model(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(PARAMS), exist_ok=True)
    torch.save(model.state_dict(), PARAMS)
    print(f"wrote {PARAMS}")


if __name__ == "__main__":
    main()
