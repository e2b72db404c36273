"""Trains EventNet on synthetic geophone windows; writes weights/eventnet.pt and the archive
sessions the deployment uses (reviewed events, last month's triggers, a live stream tail).
Deterministic (fixed seeds, one thread), well under a minute.

The gain stage has no parameters and works one window at a time (the station classifies one
window per call), so the conditioned windows are computed once, window by window, and the
conv stack and head are trained on them."""
import os

import numpy as np
import torch
from torch import nn

from seismo.config import StationConfig
from seismo.network import WEIGHTS, EventNet
from seismo.waveforms import synth_windows
from station.digitizer import ARCHIVE, Digitizer

EPOCHS, BATCH, LR = 25, 64, 3e-3


def to_counts(v, station=StationConfig()):
    return np.round(v * station.counts_per_um_s).astype(np.int32)


def stream(seed, station=StationConfig()):
    """A 30 s stream: ambient noise with two events in it."""
    r = np.random.default_rng(seed)
    parts, _ = synth_windows(8, seed + 1)
    x = np.concatenate([parts[i] for i in range(7)], axis=-1)[:, : 30 * station.sample_rate_hz + 200]
    return x + 0.5 * r.standard_normal(x.shape)


def conditioned(net, v):
    with torch.no_grad():
        return torch.cat([net.condition(v[i:i + 1]) for i in range(len(v))])


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.makedirs(ARCHIVE, exist_ok=True)
    tr, ytr = synth_windows(3000, 21)
    ev, yev = synth_windows(400, 22)
    cal, _ = synth_windows(64, 23)
    np.savez_compressed(os.path.join(ARCHIVE, "reviewed_events.npz"), counts=to_counts(ev), labels=yev)
    np.savez_compressed(os.path.join(ARCHIVE, "triggers_prev_month.npz"), counts=to_counts(cal))
    np.savez_compressed(os.path.join(ARCHIVE, "stream_tail.npz"), counts=to_counts(stream(24)))

    dig = Digitizer()
    net = EventNet()
    x = conditioned(net, torch.from_numpy(dig.to_velocity(to_counts(tr))))
    xe = conditioned(net, torch.from_numpy(dig.to_velocity(to_counts(ev))))
    y, ye = torch.from_numpy(ytr), torch.from_numpy(yev)
    body = nn.Sequential(net.features, net.head)
    opt = torch.optim.AdamW(body.parameters(), lr=LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        body.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(body(x[idx]), y[idx])
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        body.eval()
        with torch.no_grad():
            acc = (body(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}", flush=True)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
