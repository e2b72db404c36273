"""Train BearingCNN on 4,000 synthetic windows -> state/bearing_cnn.pt (CPU, one thread, ~20 s)."""
import torch
import torch.nn.functional as F

from bearingnet import signals
from bearingnet.net import STATE_FILE, BearingCNN


def main(epochs=14):
    torch.set_num_threads(1)
    torch.manual_seed(3)
    x, y = signals.training_windows()
    model = BearingCNN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    gen = torch.Generator().manual_seed(3)
    for epoch in range(epochs):
        model.train()
        for idx in torch.randperm(len(y), generator=gen).split(50):
            opt.zero_grad()
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        model.eval()
        (xe,), ye = signals.eval_windows()
        with torch.no_grad():
            acc = (model(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1:2d}: held-out accuracy {acc:.4f}")
    torch.save(model.state_dict(), STATE_FILE)


if __name__ == "__main__":
    main()
