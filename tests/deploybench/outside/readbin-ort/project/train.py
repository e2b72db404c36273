"""Trains the ReadBinner (random init from the tiny BERT config, fixed seeds, one thread, under a
minute). Every batch has its own read length (12 to 44 bases), so the model bins any trimmed
length; writes weights/readbinner.pt."""
import numpy as np
import torch
from torch import nn

from readbin.benchmark import benchmark, tokenize
from readbin.encoder import ReadBinner
from readbin.store import WEIGHTS
from readbin.taxa import simulate_reads

STEPS = 1200
BATCH = 48
LR = 3e-3


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    model = ReadBinner()
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, LR, total_steps=STEPS)
    model.train()
    for step in range(STEPS):
        reads, labels = simulate_reads(BATCH, int(rng.integers(12, 45)), seed=10_000 + step)
        loss = nn.functional.cross_entropy(model(tokenize(reads)), torch.from_numpy(labels))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    model.eval()
    (ids,), labels = benchmark()
    with torch.no_grad():
        acc = (model(ids).argmax(1) == labels).float().mean().item()
    print(f"benchmark accuracy (24-base reads) {acc:.4f}")
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
