"""Train the keyword spotter (fixed seeds, one thread, ~8 s). Every step draws a batch of one
length between 32 and 96 frames, so the spotter sees the lengths the device records.
Writes checkpoints/spotter.pt."""
import os

import torch
from torch import nn

import melfeatures
from spotter import CHECKPOINT, KeywordSpotter

STEPS, BATCH, LR = 700, 32, 3e-3


def main():
    torch.set_num_threads(1)
    torch.manual_seed(3)
    lengths = torch.Generator().manual_seed(3)
    model = KeywordSpotter()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    for step in range(STEPS):
        model.train()
        frames = int(torch.randint(32, 97, (1,), generator=lengths))
        x, y = melfeatures.utterances(BATCH, frames, seed=10_000 + step)
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    (x,), y = melfeatures.validation_set()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    print(f"validation accuracy (40 frames): {acc:.4f}")
    os.makedirs(os.path.dirname(CHECKPOINT), exist_ok=True)
    torch.save(model.state_dict(), CHECKPOINT)
    print(f"saved {CHECKPOINT}")


if __name__ == "__main__":
    main()
