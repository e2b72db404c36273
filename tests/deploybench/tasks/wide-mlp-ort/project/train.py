"""Train WideMLP on the digits split (fixed seed, a few seconds on a CPU); writes wide_mlp.pt."""
import os

import torch

from datasets import held_out, train_rows
from nets import HERE, WideMLP

torch.manual_seed(0)
x, y = train_rows()
x, y = torch.from_numpy(x), torch.from_numpy(y).long()
net = WideMLP()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for epoch in range(30):
    for i in torch.randperm(len(x)).split(64):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x[i]), y[i]).backward()
        opt.step()
net.eval()
(xt,), yt = held_out()
with torch.no_grad():
    print(f"held-out accuracy {(net(xt).argmax(1) == yt).float().mean():.4f}")
# Stored in half precision (half the file); the model runs in float32 from these values.
torch.save({k: v.half() for k, v in net.state_dict().items()}, os.path.join(HERE, "wide_mlp.pt"))
