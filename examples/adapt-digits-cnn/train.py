"""Train the backbone and its head on the base classes 0-4 (a few seconds on a CPU) and write
weights.pt. The novel classes 5-9 are left for on-device adaptation."""
import torch
from torch import nn

import data
from model import WEIGHTS, DigitsNet

EPOCHS = 30


def main():
    torch.manual_seed(0)
    x, y = data.base_train_set()
    model = DigitsNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(EPOCHS):
        model.train()
        for idx in torch.randperm(len(y)).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    model.eval()
    tx, ty = data.base_test_set()
    with torch.no_grad():
        acc = (model(tx).argmax(1) == ty).float().mean().item()
    print(f"base-class test accuracy {acc:.3f}")
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
