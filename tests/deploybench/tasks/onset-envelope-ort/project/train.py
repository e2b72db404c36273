"""Train the onset-envelope model and write envelope_weights.pt (fixed seeds, one thread, seconds)."""
import torch
from torch import nn

import clips
from envelope_model import WEIGHTS_FILE, make_model


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(400):
        model.train()
        x, y = clips.render(64, seed=5000 + step)
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    (xt,), yt = clips.test_clips()
    with torch.no_grad():
        acc = (model(xt).argmax(1) == yt).float().mean().item()
    print(f"test accuracy {acc:.4f}")
    torch.save(model.state_dict(), WEIGHTS_FILE)
    print(f"wrote {WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
