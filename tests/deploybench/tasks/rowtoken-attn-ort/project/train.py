"""Train the row encoder on the digits training split; writes row_attention.pt (fixed seed, one
thread, seconds)."""
import torch
from torch import nn

import row_tokens
from encoders.row_attention import CKPT, RowEncoder


def main(epochs=25):
    torch.manual_seed(12)
    torch.set_num_threads(1)
    x, y = row_tokens.fitting_sequences()
    net = RowEncoder()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(12)
    for _ in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xt,), yt = row_tokens.test_sequences()
    with torch.no_grad():
        print(f"test accuracy {(net(xt).argmax(1) == yt).float().mean().item():.4f}")
    torch.save(net.state_dict(), CKPT)


if __name__ == "__main__":
    main()
