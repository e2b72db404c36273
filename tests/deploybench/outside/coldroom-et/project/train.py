"""Train UnitStateMLP on the simulated service history (seed 1, the same history the scaler
was fitted on) and write weights/unit_state_mlp.pt. Deterministic, seconds."""
import os

import torch
from torch import nn

from coldroom.classifier import WEIGHTS, UnitStateMLP
from coldroom.datasets import eval_snapshots
from coldroom.plant import simulate
from coldroom.scaling import SCALER
from make_telemetry import TRAIN_SEED

EPOCHS = 40


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rows, states = simulate(6000, TRAIN_SEED)
    x, y = torch.from_numpy(SCALER.transform(rows)), torch.from_numpy(states)
    model = UnitStateMLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
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
        if epoch % 10 == 9:
            model.eval()
            (xe,), ye = eval_snapshots()
            with torch.no_grad():
                acc = (model(xe).argmax(1) == ye).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(y):.4f}, eval accuracy {acc:.4f}")
    os.makedirs(os.path.dirname(WEIGHTS), exist_ok=True)
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
