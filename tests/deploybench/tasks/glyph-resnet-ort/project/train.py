"""Train GlyphNet on the digits training split; writes checkpoints/glyphnet.pt (fixed seeds, one
thread, seconds)."""
import torch
from torch import nn

from dataset_utils import holdout, training_pairs
from nets.glyphnet import CHECKPOINT, GlyphNet


def main(epochs=15):
    torch.manual_seed(3)
    torch.set_num_threads(1)
    x, y = training_pairs()
    net = GlyphNet()
    opt = torch.optim.AdamW(net.parameters(), lr=4e-3, weight_decay=1e-4)
    g = torch.Generator().manual_seed(3)
    for epoch in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(48):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = holdout()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"holdout accuracy {acc:.4f}")
    torch.save(net.state_dict(), CHECKPOINT)


if __name__ == "__main__":
    main()
