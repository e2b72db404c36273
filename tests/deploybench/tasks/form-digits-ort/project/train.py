"""Train the form-digits reader and write reader_weights.pt (fixed seed, one thread, seconds)."""
import torch
from torch import nn

import boxes
from reader import WEIGHTS, BoxReader


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    reader = BoxReader()
    x, y = boxes.train_boxes()
    opt = torch.optim.Adam(reader.parameters(), lr=2e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(40):
        reader.train()
        for idx in torch.randperm(len(y), generator=gen).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(reader(x[idx]), y[idx]).backward()
            opt.step()
    reader.eval()
    (xe,), ye = boxes.eval_boxes()
    with torch.no_grad():
        acc = (reader(xe).argmax(1) == ye).float().mean().item()
    print(f"held-out accuracy {acc:.4f}")
    torch.save(reader.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
