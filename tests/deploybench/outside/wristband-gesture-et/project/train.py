"""Train GestureTCN on synthetic wristband recordings; writes gesturelab/imu_norm.json (the
feature statistics) and weights/gesture_tcn.pt.  Deterministic, a few seconds.
  python train.py               # writes the data files first if missing
  python train.py --regen-data  # rebuild data/*.npz and data/session_0412.imu from the simulator
"""
import os
import sys

import numpy as np
import torch
from torch.nn import functional as F

import bench
from gesturelab.features import fit_norm, to_model_input
from gesturelab.synth import record
from gesturelab.tcn import GestureTCN

TRAIN_SEED, EVAL_SEED, CALIB_SEED, SESSION_SEED = 31, 32, 33, 34
N_TRAIN, N_EVAL, N_CALIB = 2400, 360, 64
EPOCHS, BATCH = 15, 64
SESSION_FILE = os.path.join(bench.ROOT, "data", "session_0412.imu")


def write_data():
    os.makedirs(os.path.dirname(bench.EVAL_FILE), exist_ok=True)
    for path, n, seed in ((bench.EVAL_FILE, N_EVAL, EVAL_SEED), (bench.CALIB_FILE, N_CALIB, CALIB_SEED)):
        rec = record(n, seed)
        np.savez_compressed(path, counts=rec.counts, gesture=rec.gesture)
    # a short on-wrist session as the watch logs it: raw little-endian int16, ax ay az gx gy gz
    session = record(6, SESSION_SEED).counts.reshape(-1, 6)
    session.astype("<i2").tofile(SESSION_FILE)
    print(f"wrote {bench.EVAL_FILE}, {bench.CALIB_FILE}, {SESSION_FILE}")


def main():
    if "--regen-data" in sys.argv or not os.path.isfile(bench.EVAL_FILE):
        write_data()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rec = record(N_TRAIN, TRAIN_SEED)
    fit_norm(rec.counts)
    x, y = torch.from_numpy(to_model_input(rec.counts)), torch.from_numpy(rec.gesture)
    (xe,), ye = bench.labelled_windows()
    net = GestureTCN()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            loss = F.cross_entropy(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 5 == 4:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {loss.item():.4f}, eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(bench.WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), bench.WEIGHTS)
    print(f"wrote {bench.WEIGHTS}")


if __name__ == "__main__":
    main()
