"""Train the bearing encoder on data/vibration_train.npz and write weights/bearing_encoder.pt.
Deterministic (fixed seeds, one thread); a few seconds on a laptop CPU."""
import os

import torch
from torch import nn

from bearingnet import splits
from bearingnet.encoder import WEIGHTS, BearingEncoder

EPOCHS = 40
BATCH = 32


def accuracy(model):
    (x,), y = splits.eval_split()
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x, y = splits.train_split()
    model = BearingEncoder()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 10 == 9:
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {accuracy(model):.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
