"""Train CellGradeNet on simulated charge steps (seed 5), quantised to the station's mV / mA
resolution, and write weights/grader_r2.pt. Deterministic, one thread, seconds."""
import os

import numpy as np
import torch
from torch import nn

from grading.chemistry import simulate
from grading.dataset import eval_steps, to_step_log
from grading.grader import WEIGHTS, CellGradeNet

EPOCHS = 40
JITTER_V = 3.0 / 500.0       # 3 mV in the normalised voltage unit (0.5 V)
JITTER_I = 0.005


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    v, i, _, g = simulate(4000, seed=5)
    x = torch.from_numpy(to_step_log(np.round(v * 1000), np.round(i * 1000)))
    y = torch.from_numpy(g)
    net = CellGradeNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for k in range(0, len(y), 64):
            idx = order[k:k + 64]
            xb = x[idx].clone()
            # channel-to-channel spread of the station's voltage sense (~3 mV) and current shunt
            xb[:, 0] += JITTER_V * torch.randn(xb[:, 0].shape, generator=gen)
            xb[:, 1] *= 1.0 + JITTER_I * torch.randn(len(idx), 1, generator=gen)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xb), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        if epoch % 10 == 9:
            net.eval()
            (xe,), ye = eval_steps()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
