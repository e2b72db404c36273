"""Train the wave-transformer model and write weights.pt (deterministic: fixed seeds, one thread;
under a minute on one CPU thread). Every batch has its own length (4 to 32 frames), so the
model classifies any window length the app streams."""
import torch
from torch import nn

import data
from model import WEIGHTS, WaveTransformer

STEPS = 1500
BATCH = 32


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = WaveTransformer()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, STEPS)
    gen = torch.Generator().manual_seed(0)
    total = 0.0
    for step in range(STEPS):
        model.train()
        frames = int(torch.randint(4, 33, (1,), generator=gen))
        x, y = data.waves(BATCH, frames, seed=1000 + step)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        total += loss.item()
        if step % 300 == 299:
            model.eval()
            (xe,), ye = data.eval_set()
            with torch.no_grad():
                acc = (model(xe).argmax(1) == ye).float().mean().item()
            print(f"step {step + 1}: loss {total / 300:.4f}, eval accuracy {acc:.4f}")
            total = 0.0
    torch.save(model.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
