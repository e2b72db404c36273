"""Train HiveNet on simulated recordings of random lengths (every batch its own length, 40 to
128 frames) and write weights/hivenet_2024.pt. Deterministic; under a minute on a laptop CPU."""
import numpy as np
import torch
from torch import nn

from hivesense.colony_sim import STATES, clip
from hivesense.datasets import acceptance_windows
from hivesense.hivenet import WEIGHTS, HiveNet
from hivesense.melframes import to_model_frames

EPOCHS = 10
BATCHES, BATCH = 48, 32


def training_batches(seed=2023):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(BATCHES):
        frames = int(rng.integers(40, 129))
        states = rng.integers(0, len(STATES), BATCH)
        x = np.stack([to_model_frames(clip(int(s), frames, rng)) for s in states])[:, None]
        out.append((torch.from_numpy(x), torch.from_numpy(states.astype(np.int64))))
    return out


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    batches = training_batches()
    net = HiveNet()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    gen = torch.Generator().manual_seed(0)
    (xe,), ye = acceptance_windows()
    for epoch in range(EPOCHS):
        net.train()
        total = 0.0
        for i in torch.randperm(len(batches), generator=gen).tolist():
            x, y = batches[i]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            total += loss.item()
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {total / len(batches):.4f}, acceptance accuracy (3 s windows) {acc:.4f}")
    torch.save(net.state_dict(), WEIGHTS)
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
