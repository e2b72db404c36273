"""Train RegimeTagger on synthetic tape windows (fixed seeds, one thread, seconds) and write
weights/regime_tagger.pt."""
import torch
from torch import nn

from regime.deploy import backtest_windows
from regime.tagger import WEIGHTS, RegimeTagger
from regime.tape import synth_windows

EPOCHS, N_TRAIN = 15, 2000


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    w = synth_windows(N_TRAIN, seed=11)
    x, y = torch.from_numpy(w.relative()), torch.from_numpy(w.regime)
    (xe,), ye = backtest_windows()
    net = RegimeTagger()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: backtest accuracy {acc:.4f}")
    WEIGHTS.parent.mkdir(exist_ok=True)
    torch.save(net.state_dict(), WEIGHTS)
    print("wrote", WEIGHTS)


if __name__ == "__main__":
    main()
