"""Train AssayNet on standardised training rows (fixed seed), then fold the standardisation into
the first layer so the network takes raw rows; writes assay_net.pt."""
import torch

from assay.model import WEIGHTS, AssayNet
from assay.rows import training, validation

torch.manual_seed(0)
x, y = training()
center, spread = x.mean(0), x.std(0)
net = AssayNet()
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for epoch in range(200):
    for batch in torch.randperm(len(x)).split(32):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net((x[batch] - center) / spread), y[batch]).backward()
        opt.step()
first = net.classify[0]
with torch.no_grad():
    # first((x - center) / spread) == (first.weight / spread) @ x + first.bias - (first.weight / spread) @ center
    first.weight.div_(spread)
    first.bias.sub_(first.weight @ center)
net.eval()
(xv,), yv = validation()
with torch.no_grad():
    print(f"validation accuracy on raw rows {(net(xv).argmax(1) == yv).float().mean():.4f}")
torch.save(net.state_dict(), WEIGHTS)
