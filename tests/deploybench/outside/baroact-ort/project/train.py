"""Train the activity encoder on synthetic recordings (fixed seeds, under a minute on 2 cores)."""
import os

import numpy as np
import torch

from wearsense.model import WEIGHTS, ActivityEncoder
from wearsense.synth import record
from wearsense.windows import RECORDINGS, to_windows


def write_recordings():
    os.makedirs(RECORDINGS, exist_ok=True)
    for name, n, seed, labelled in (("annotated_walks.npz", 400, 11, True),
                                    ("commute_day2.npz", 96, 23, False)):
        rec = record(n, seed)
        if not labelled:
            rec.pop("labels")
        np.savez_compressed(os.path.join(RECORDINGS, name), **rec)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    write_recordings()
    rec = record(1600, seed=5)
    x, y = to_windows(rec["imu"], rec["baro_pa"]), torch.from_numpy(rec["labels"])
    model = ActivityEncoder()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    for epoch in range(5):
        perm = torch.randperm(len(x))
        model.train()
        for i in range(0, len(x), 64):
            idx = perm[i:i + 64]
            loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    model.eval()
    ev = record(400, 11)
    with torch.no_grad():
        acc = (model(to_windows(ev["imu"], ev["baro_pa"])).argmax(1).numpy() == ev["labels"]).mean()
    print(f"eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
