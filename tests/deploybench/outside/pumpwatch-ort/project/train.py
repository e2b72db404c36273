"""Train PumpConditionNet on freshly synthesised rig windows (seed 7) and write
weights/pumpwatch_v3.pt. Deterministic, one thread, a few seconds."""
import os

import torch
from torch import nn

from pumpwatch.captures import eval_windows
from pumpwatch.classifier import STOPPED, WEIGHTS, PumpConditionNet
from pumpwatch.sensor import counts_to_g
from pumpwatch.synth import make_counts

EPOCHS = 30


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    counts, labels = make_counts(400, seed=7)
    x, y = torch.from_numpy(counts_to_g(counts)), torch.from_numpy(labels)
    net = PumpConditionNet()
    # the stopped class is the front end's job (fallback path); the CNN learns the running ones
    keep = y != STOPPED
    with torch.no_grad():
        wave, log_level, _ = net.front(x[keep])
    yk = y[keep]
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(yk), generator=gen)
        total = 0.0
        for i in range(0, len(yk), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net.run_network(wave[idx], log_level[idx]), yk[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 10 == 9:
            net.eval()
            (xe,), ye = eval_windows()
            with torch.no_grad():
                acc = (net(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(yk):.4f}, eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
