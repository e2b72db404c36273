"""Train the vibration-res model and write vibration.pt (fixed seeds, one thread, under a
minute). Every batch has its own length (48 to 256 samples)."""
import torch
from torch import nn

import recordings
from residual import CHECKPOINT, VibrationNet


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = VibrationNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    for step in range(400):
        net.train()
        n = int(torch.randint(48, 257, (1,), generator=gen))
        x, y = recordings.record(32, n, seed=3000 + step)
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), torch.from_numpy(y)).backward()
        opt.step()
    net.eval()
    (xe,), ye = recordings.evaluation_set()
    with torch.no_grad():
        acc = (net(xe).argmax(1) == ye).float().mean().item()
    print(f"evaluation accuracy {acc:.4f}")
    torch.save(net.state_dict(), CHECKPOINT)
    print(f"wrote {CHECKPOINT}")


if __name__ == "__main__":
    main()
