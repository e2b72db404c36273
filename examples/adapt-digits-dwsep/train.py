"""Train the backbone and its head on the base classes 0-4 (a few seconds on a CPU) and write
weights.pt. The novel classes 5-9 are left for on-device adaptation.

A few seconds of training on 8x8 digits do not produce what long training runs of depthwise
networks do: per-channel weight ranges that differ by orders of magnitude once batch norm is
folded into the depthwise convolutions (MobileNetV2 trained on ImageNet: up to ~100x between
channels of one layer, Nagel et al., "Data-Free Quantization Through Weight Equalization and
Bias Correction", 2019). `imbalance()` gives the trained weights that property without changing
the float function: each depthwise block's batch norm output channel c is scaled by s_c (spread
log-uniformly over 0.1..10, fixed seed) and the next pointwise convolution's input channel c by
1/s_c; ReLU(s x) = s ReLU(x) for s > 0, so the model computes exactly what it did (checked).
"""
import torch
from torch import nn

import data
from model import WEIGHTS, DigitsDWSep

EPOCHS = 30
SPREAD = 10.0


def imbalance(model, x):
    """Rescale channels between each depthwise block's BN and its pointwise conv (see above)."""
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        before = model(x)
        for block in list(model.backbone)[3:6]:
            bn, pw = block[1], block[3]
            s = SPREAD ** (2 * torch.rand(bn.num_features, generator=gen) - 1)
            bn.weight.mul_(s)
            bn.bias.mul_(s)
            pw.weight.div_(s.view(1, -1, 1, 1))
        after = model(x)
    assert torch.allclose(before, after, rtol=1e-4, atol=1e-4), float((before - after).abs().max())


def main():
    torch.manual_seed(0)
    x, y = data.base_train_set()
    model = DigitsDWSep()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(EPOCHS):
        model.train()
        for idx in torch.randperm(len(y)).split(64):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    model.eval()
    imbalance(model, x)
    tx, ty = data.base_test_set()
    with torch.no_grad():
        acc = (model(tx).argmax(1) == ty).float().mean().item()
    print(f"base-class test accuracy {acc:.3f}")
    torch.save(model.state_dict(), WEIGHTS)


if __name__ == "__main__":
    main()
