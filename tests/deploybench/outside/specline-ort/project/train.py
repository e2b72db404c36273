"""Train the grade classifier on synthetic probe frames; writes weights/oilnet.pt and recordings/."""
import os

import numpy as np
import torch
from torch import nn

from bottling.probe import RECORDINGS
from oilcheck.net import WEIGHTS, OilGradeNet
from oilcheck.preprocessing import to_model_input
from oilcheck.synth import make_frames


def prepared(wn, frames):
    return torch.from_numpy(np.stack([to_model_input(wn, a) for a in frames]))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(RECORDINGS, exist_ok=True)
    wn, ev, eg = make_frames(400, seed=12)
    np.savez_compressed(os.path.join(RECORDINGS, "lot_0412_confirmed.npz"), wavenumbers=wn, absorbance=ev, grades=eg)
    wn, cv, _ = make_frames(64, seed=13)
    np.savez_compressed(os.path.join(RECORDINGS, "lot_0415_unconfirmed.npz"), wavenumbers=wn, absorbance=cv)

    wn, tr, tg = make_frames(2000, seed=11)
    x, y = prepared(wn, tr), torch.from_numpy(tg)
    xe, ye = prepared(wn, ev), torch.from_numpy(eg)
    net = OilGradeNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    lossf = nn.CrossEntropyLoss()
    for ep in range(8):
        net.train()
        perm = torch.randperm(len(y))
        for i in range(0, len(y) - 63, 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            loss = lossf(net(x[b]), y[b])
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {ep} loss {loss.item():.3f} eval acc {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
