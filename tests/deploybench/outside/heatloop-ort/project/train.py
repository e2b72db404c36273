"""Train the substation fault detector on synthetic telemetry; writes params/detector.pt,
params/channel_stats.json, the commissioning log and the historian week. Deterministic."""
import os
import time

import numpy as np
import torch
from torch import nn

from substation.detector import WEIGHTS, SubstationFaultDetector
from substation.historian import LOGS, TAGS
from substation.scaling import ChannelScaler
from substation.simulate import generate

EPOCHS, BATCH = 25, 64
KELVIN = 273.15


def write_historian_week(windows):
    """The data platform stores every trend in SI base units: temperatures in kelvin."""
    tags = list(TAGS)
    units = ["K", "K", "K", "K", "m3/h", "%"]
    arrays = {}
    for i, (tag, unit) in enumerate(zip(tags, units)):
        arrays[tag] = windows[:, i] + (KELVIN if unit == "K" else 0.0)
    np.savez_compressed(os.path.join(LOGS, "historian_week.npz"), tags=np.array(tags), units=np.array(units), **arrays)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    t0 = time.time()
    tr, ytr = generate(3000, 21)
    ev, yev = generate(600, 22)
    hist, _ = generate(128, 23)
    os.makedirs(LOGS, exist_ok=True)
    np.savez_compressed(os.path.join(LOGS, "commissioning_log.npz"), telemetry=ev, conditions=yev)
    write_historian_week(hist)
    scaler = ChannelScaler.fit(tr)
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    scaler.save()
    x, y = torch.from_numpy(scaler.transform(tr)), torch.from_numpy(ytr)
    xe, ye = torch.from_numpy(scaler.transform(ev)), torch.from_numpy(yev)
    net = SubstationFaultDetector()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
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
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, commissioning accuracy {acc:.4f} ({time.time() - t0:.0f}s)", flush=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
