"""Trains the chorus cascade (all three exits jointly) on 2,400 rendered clips and writes
weights/chorus_cascade.pt. Deterministic: fixed seeds, one thread, a few seconds on a CPU."""
import numpy as np
import torch
from torch import nn

import recordings
from chorus.cascade import ChorusCascade
from chorus.loader import WEIGHTS
from chorus.synth import render_set

EPOCHS = 20
EXIT_WEIGHTS = (0.6, 0.8, 1.0)


def per_clip(net, x):
    """The cascade's answer clip by clip (batch 1, as on the recorder) and the exit it took."""
    out, taken = [], []
    with torch.no_grad():
        for i in range(len(x)):
            logits = net(x[i:i + 1])
            out.append(logits)
            exits = net.every_exit(x[i:i + 1])
            taken.append(next(k for k, e in enumerate(exits) if torch.equal(e, logits)))
    return torch.cat(out), np.bincount(taken, minlength=3)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    codes, labels = render_set(2400, seed=11)
    x = torch.from_numpy(recordings.codes_to_model_space(codes))
    y = torch.from_numpy(labels)
    net = ChorusCascade()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = sum(w * nn.functional.cross_entropy(e, y[idx]) for w, e in zip(EXIT_WEIGHTS, net.every_exit(x[idx])))
            loss.backward()
            opt.step()
    net.eval()
    (xe,), ye = recordings.holdout()
    with torch.no_grad():
        accs = [(e.argmax(1) == ye).float().mean().item() for e in net.every_exit(xe)]
    logits, taken = per_clip(net, xe)
    acc = (logits.argmax(1) == ye).float().mean().item()
    print(f"holdout accuracy per exit: {', '.join(f'{a:.4f}' for a in accs)}")
    print(f"cascade accuracy (clip by clip) {acc:.4f}; clips leaving at exit 1/2/3: {taken.tolist()}")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
