"""Write the capture logs under data/ and train ClusterNet into weights/clusternet_v3.pt.

Deterministic (fixed seeds, one thread). Every training batch draws its own point count in the
range the sensor produces, so the network sees clusters of every size.
"""
import os

import numpy as np
import torch
from torch import nn

from kerbscan import captures, synth
from kerbscan.clusternet import WEIGHTS, ClusterNet

TRAIN_SEED, EVAL_SEED, CALIB_SEED, FIELD_SEED = 11, 12, 13, 14
STEPS, BATCH = 400, 48


def write_logs():
    os.makedirs(captures.DATA_DIR, exist_ok=True)
    for path, seed, count in ((captures.EVAL_LOG, EVAL_SEED, 300), (captures.CALIB_LOG, CALIB_SEED, 48)):
        clouds, labels = synth.captures(seed, count)
        captures.write_log(path, clouds, labels)
    clouds, _ = synth.captures(FIELD_SEED, 12)
    captures.write_log(os.path.join(captures.DATA_DIR, "field_session.npz"), clouds, -np.ones(len(clouds)))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    write_logs()
    clouds, labels = synth.captures(TRAIN_SEED, 2400)
    unit = [captures.unit_cloud(c) for c in clouds]
    y = torch.from_numpy(labels)
    rng = np.random.default_rng(0)
    net = ClusterNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, STEPS)
    (xe,), ye = captures.eval_clusters()
    for step in range(STEPS):
        net.train()
        idx = rng.choice(len(unit), BATCH, replace=False)
        n = int(rng.integers(synth.MIN_POINTS, synth.MAX_POINTS + 1))
        xb = torch.from_numpy(np.stack([captures.resample(unit[i], n, rng) for i in idx]))
        xb = xb + 0.005 * torch.randn_like(xb)
        loss = nn.functional.cross_entropy(net(xb), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 99:
            net.eval()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"step {step + 1}: loss {loss.item():.3f}, eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
