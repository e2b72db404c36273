"""Train the screening network on the 399 training cases; writes screening_state.pt (fixed seed,
seconds)."""
import torch
from torch import nn

from models.tabular import STATE, ScreeningNet
from pipeline import cohort


def main(steps=400):
    torch.manual_seed(8)
    torch.set_num_threads(1)
    x, y = cohort.training_cases()
    net = ScreeningNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-3)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    net.eval()
    (xv,), yv = cohort.validation_cases()
    with torch.no_grad():
        print(f"validation accuracy {(net(xv).argmax(1) == yv).float().mean().item():.4f}")
    torch.save(net.state_dict(), STATE)


if __name__ == "__main__":
    main()
