"""Train PumpNet on simulated windows (fixed seed, under a minute on a CPU); writes pump_net.pt."""
import torch

from pump_monitor.net import WEIGHTS, PumpNet
from pump_monitor.windows import check_windows, training_windows

torch.manual_seed(0)
x, y = training_windows()
net = PumpNet()
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for epoch in range(40):
    for batch in torch.randperm(len(x)).split(64):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x[batch]), y[batch]).backward()
        opt.step()
net.eval()
(xc,), yc = check_windows()
with torch.no_grad():
    print(f"check accuracy {(net(xc).argmax(1) == yc).float().mean():.4f}")
torch.save(net.state_dict(), WEIGHTS)
