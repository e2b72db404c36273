"""Fits the per-bin scaler (opc/bin_stats.json) on the 2023 archive and trains SourceMLP on it;
writes weights/source_mlp.pt. Deterministic: fixed seeds, one thread, a few seconds."""
import torch
from torch import nn

import evaluation
from opc import stores
from opc.source_mlp import WEIGHTS, SourceMLP
from opc.spectrum import BinScaler, bin_scaler

EPOCHS = 40


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    log_spectra, labels = stores.archive()
    scaler = BinScaler.fit(log_spectra)
    scaler.save()
    bin_scaler.cache_clear()
    x = torch.from_numpy(scaler.standardise(log_spectra))
    y = torch.from_numpy(labels)
    net = SourceMLP()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xe,), ye = evaluation.holdout_2024()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"2024 holdout accuracy {acc:.4f} on {len(ye)} spectra")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
