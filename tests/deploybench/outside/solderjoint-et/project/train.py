"""Train JointNet on synthetic solder-joint patches (fixed seeds, < 1 min on 2 cores)."""
import os
import time

import numpy as np
import torch

from aoi.net import WEIGHTS, JointNet
from aoi.optics import PatchNorm, center_crop, to_network_layout
from aoi.synth import make_patches


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    raw, y = make_patches(1536, seed=1)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(to_network_layout(PatchNorm().apply(center_crop(raw))))
    y = torch.from_numpy(y)
    model = JointNet().train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    t0 = time.time()
    for epoch in range(4):
        perm = torch.randperm(len(y))
        for s in range(0, len(y), 64):
            i = perm[s:s + 64]
            xb = x[i]
            if rng.random() < 0.5:
                xb = torch.flip(xb, dims=[3])
            loss = torch.nn.functional.cross_entropy(model(xb), y[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f} {time.time() - t0:.1f}s", flush=True)
    model.eval()
    vr, vy = make_patches(500, seed=11)
    with torch.no_grad():
        acc = (model(torch.from_numpy(to_network_layout(PatchNorm().apply(center_crop(vr))))).argmax(1).numpy() == vy).mean()
    print(f"eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
