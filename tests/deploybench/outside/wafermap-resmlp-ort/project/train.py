"""Train the ResMLP on data/wafers.npz -> resmlp_wafer.pt (seed 0, about a minute on one core)."""
import torch
from torch import nn

from fabscan import hooks
from fabscan.resmlp import CHECKPOINT, build_resmlp

EPOCHS, BATCH = 10, 64


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, y = hooks.training_maps()
    (xe,), ye = hooks.held_out()
    model = build_resmlp()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=EPOCHS * ((len(y) + BATCH - 1) // BATCH))
    gen = torch.Generator().manual_seed(0)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            idx = order[i:i + BATCH]
            xb = x[idx]
            if epoch % 2:   # wafers come off the prober in any of the 4 notch orientations
                xb = torch.rot90(xb, k=int(torch.randint(4, (1,), generator=gen)), dims=(2, 3))
            loss = nn.functional.cross_entropy(model(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(xe).argmax(1) == ye).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}  eval accuracy {acc:.4f}")
    torch.save(model.state_dict(), CHECKPOINT)
    print("wrote", CHECKPOINT)


if __name__ == "__main__":
    main()
