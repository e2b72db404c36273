"""Train DisturbanceNet on 5,000 synthetic snapshots -> models/disturbance_net.pt (one thread)."""
import torch
import torch.nn.functional as F

from gridwatch import telemetry
from gridwatch.classifier import WEIGHTS, DisturbanceNet


def train(epochs=30, lr=3e-3):
    torch.set_num_threads(1)
    torch.manual_seed(12)
    x, y = telemetry.training_snapshots()
    net = DisturbanceNet()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    g = torch.Generator().manual_seed(12)
    for epoch in range(epochs):
        net.train()
        for idx in torch.randperm(len(y), generator=g).split(100):
            opt.zero_grad()
            F.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
        sched.step()
        if (epoch + 1) % 5 == 0:
            net.eval()
            (xe,), ye = telemetry.evaluation_snapshots()
            with torch.no_grad():
                print(f"epoch {epoch + 1}: evaluation accuracy {(net(xe).argmax(1) == ye).float().mean().item():.4f}")
    torch.save(net.state_dict(), WEIGHTS)


if __name__ == "__main__":
    train()
