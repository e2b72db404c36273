"""Train SpectrumNet on synthetic flakes and write weights/spectrum_net.pt (one thread, ~20 s)."""
import torch
import torch.nn.functional as F

from nirsort import spectra
from nirsort.model import SpectrumNet, weights_path

EPOCHS, BATCH, LR = 20, 64, 2e-3


def accuracy(net, x, y):
    net.eval()
    with torch.no_grad():
        return (net(x).argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(3)
    torch.set_num_threads(1)
    x, y = spectra.training_split()
    (xv,), yv = spectra.validation_split()
    net = SpectrumNet()
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=8, gamma=0.3)
    order = torch.Generator().manual_seed(3)
    for epoch in range(EPOCHS):
        net.train()
        for idx in torch.randperm(len(y), generator=order).split(BATCH):
            opt.zero_grad()
            F.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        if epoch % 4 == 3 or epoch == EPOCHS - 1:
            print(f"epoch {epoch + 1}: train {accuracy(net, x, y):.4f}  validation {accuracy(net, xv, yv):.4f}")
    torch.save(net.state_dict(), weights_path())
    print(f"saved {weights_path()}")


if __name__ == "__main__":
    main()
