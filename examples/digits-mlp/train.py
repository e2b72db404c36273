"""Train the digits-mlp model on the digits training split and write weights.pt (deterministic:
fixed seeds, one thread; a few seconds on a laptop CPU)."""
import torch
from torch import nn

import data
from model import WEIGHTS, DigitsMLP

EPOCHS = 20


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x, y = data.train_set()
    model = DigitsMLP()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        if epoch % 5 == 4 or epoch == EPOCHS - 1:
            model.eval()
            (xe,), ye = data.eval_set()
            with torch.no_grad():
                acc = (model(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}")
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
