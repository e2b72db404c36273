"""Train the digits-pair model on pairs of training images and write weights.pt (deterministic:
fixed seeds, one thread; a few seconds on a laptop CPU)."""
import torch
from torch import nn

import data
from model import WEIGHTS, DigitsPair

EPOCHS = 12


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = DigitsPair()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(EPOCHS):
        model.train()
        a, b, same = data.train_pairs(epoch)
        total = 0.0
        for i in range(0, len(same), 64):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(a[i:i + 64], b[i:i + 64]), same[i:i + 64])
            loss.backward()
            opt.step()
            total += loss.item() * len(same[i:i + 64])
        if epoch % 4 == 3 or epoch == EPOCHS - 1:
            model.eval()
            (ea, eb), es = data.eval_set()
            with torch.no_grad():
                acc = (model(ea, eb).argmax(1) == es).float().mean().item()
            print(f"epoch {epoch + 1}: loss {total / len(same):.4f}, eval accuracy {acc:.4f}")
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
