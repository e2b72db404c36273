"""Train the sorter (fixed seeds, well under a minute on 2 cores) and enroll the prototypes."""
import os

import numpy as np
import torch
import torch.nn.functional as F

from partsort.catalog import PARTS, capture
from partsort.frames import CAPTURES, to_patches
from partsort.metric import unit_rows
from partsort.net import WEIGHTS, PartSorter


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(CAPTURES, exist_ok=True)
    f, l = capture(300, seed=101)
    np.savez_compressed(os.path.join(CAPTURES, "audit_shift.npz"), frames=f, labels=l)
    f, _ = capture(64, seed=202)
    np.savez_compressed(os.path.join(CAPTURES, "line_unlabelled.npz"), frames=f)

    frames, labels = capture(1500, seed=7)
    x, y = to_patches(frames), torch.from_numpy(labels)
    model = PartSorter()
    protos = torch.nn.Parameter(torch.randn(len(PARTS), 32))
    opt = torch.optim.Adam(list(model.backbone.parameters()) + [protos], lr=2e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=8 * 24)
    for epoch in range(8):
        model.train()
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 64):
            idx = perm[i:i + 64]
            logits = model.head.scale * F.linear(unit_rows(model.embed(x[idx])), unit_rows(protos))
            loss = F.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    model.head.enroll(protos)
    model.eval()
    f, l = capture(300, seed=101)
    with torch.no_grad():
        acc = (model(to_patches(f)).argmax(1).numpy() == l).mean()
    print(f"audit accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
