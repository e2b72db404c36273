"""Fit the spindle hazard network on a simulated fleet and write weights/spindle_hazard.pt.

Deterministic (fixed seeds, one thread), a few seconds on a laptop CPU.
  python train.py               # train (writes the data file first if it is missing)
  python train.py --regen-data  # rewrite data/fleet_eval.npz from the simulator, then train
"""
import os
import sys

import numpy as np
import torch

import catalog
from spindlewatch.spectra import WINDOWS, simulate_fleet
from spindlewatch.survival import SpindleHazardNet

TRAIN_SEED, EVAL_SEED, CALIB_SEED = 11, 12, 13
N_TRAIN, N_EVAL, N_CALIB = 4000, 600, 128
EPOCHS, BATCH = 40, 128


def write_snapshots():
    ev = simulate_fleet(N_EVAL, EVAL_SEED)
    cal = simulate_fleet(N_CALIB, CALIB_SEED)
    os.makedirs(os.path.dirname(catalog.SNAPSHOTS), exist_ok=True)
    np.savez_compressed(catalog.SNAPSHOTS, eval_energies=ev.energies, eval_window=ev.window,
                        calib_energies=cal.energies)
    print(f"wrote {catalog.SNAPSHOTS}")


def main():
    if "--regen-data" in sys.argv or not os.path.isfile(catalog.SNAPSHOTS):
        write_snapshots()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    fleet = simulate_fleet(N_TRAIN, TRAIN_SEED)
    x, y = torch.from_numpy(fleet.energies), torch.from_numpy(fleet.window)
    net = SpindleHazardNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    (xe,), ye = catalog.eval_set()
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            pmf = net(x[idx])
            loss = -torch.log(pmf.gather(1, y[idx, None]).clamp_min(1e-8)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 10 == 9:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: nll {total / len(y):.4f}, held-out accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(catalog.WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), catalog.WEIGHTS)
    print(f"wrote {catalog.WEIGHTS} ({len(WINDOWS)} failure windows)")


if __name__ == "__main__":
    main()
