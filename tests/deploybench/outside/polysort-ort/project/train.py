"""Train FlakeNet on synthetic line captures and write weights/flakenet_v3.pt.
Deterministic (fixed seeds, one thread); about ten seconds on a laptop CPU."""
import torch
from torch import nn

from nirsort.feeds import acceptance_set
from nirsort.flakenet import WEIGHTS, FlakeNet
from nirsort.optics import prepare
from nirsort.synth import capture

EPOCHS = 12
SESSIONS = [(1500, 101), (1500, 102), (1500, 103), (1500, 104)]  # (flakes, seed) per start-up


def training_flakes():
    xs, ys = [], []
    for n, seed in SESSIONS:
        raw, labels, refs = capture(n, seed)
        xs.append(torch.from_numpy(prepare(raw, refs)))
        ys.append(torch.from_numpy(labels))
    return torch.cat(xs), torch.cat(ys)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x, y = training_flakes()
    net = FlakeNet()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    (xe,), ye = acceptance_set()
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, acceptance accuracy {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
