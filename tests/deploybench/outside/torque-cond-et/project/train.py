"""Train TorqueFaultNet on 4,000 synthetic windows (fixed seeds, one thread, a few seconds).

Training goes one window at a time through the normaliser's per-window decision, so batches
are normalised row by row here and the MLP is trained on the result.
Writes weights/torque_net.pt."""
import torch
from torch import nn

from motorfault import traces
from motorfault.net import WEIGHTS, TorqueFaultNet

SETTINGS = dict(epochs=30, batch=64, lr=2e-3, seed=11)


def features(net, x):
    shape = torch.cat([net.normalizer.normalise(row[None]) for row in x])
    return torch.cat([shape, x.mean(dim=-1, keepdim=True)], dim=-1)


def main(cfg=SETTINGS):
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    net = TorqueFaultNet()
    x, y = traces.training_windows()
    with torch.no_grad():
        feats = features(net, x)
    opt = torch.optim.Adam(net.mlp.parameters(), lr=cfg["lr"])
    g = torch.Generator().manual_seed(cfg["seed"])
    for _ in range(cfg["epochs"]):
        for idx in torch.randperm(len(y), generator=g).split(cfg["batch"]):
            opt.zero_grad()
            nn.functional.cross_entropy(net.mlp(feats[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    (xt,), yt = traces.test_windows()
    with torch.no_grad():
        per_window = net.mlp(features(net, xt)).argmax(1)
        batched = net(xt).argmax(1)
    print(f"test accuracy, one window at a time: {(per_window == yt).float().mean().item():.4f}")
    print(f"test accuracy, whole test batch at once: {(batched == yt).float().mean().item():.4f}")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
